"""The race rooms' API, mounted under ``api/`` by ``config/urls.py``."""

from django.urls import path, register_converter

from .api import InviteView, JoinView, LeaveView, RacesView, RaceView, RematchView, StartView


class RaceIdConverter:
    """``<race_id:…>``: a room's id as made (``races.services._new_slug``)."""

    regex = "[a-z0-9]{1,16}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(RaceIdConverter, "race_id")

urlpatterns = [
    path("races/", RacesView.as_view(), name="races"),
    path("races/<race_id:race>/", RaceView.as_view(), name="race"),
    path("races/<race_id:race>/join/", JoinView.as_view(), name="race-join"),
    path("races/<race_id:race>/leave/", LeaveView.as_view(), name="race-leave"),
    path("races/<race_id:race>/start/", StartView.as_view(), name="race-start"),
    path("races/<race_id:race>/invite/", InviteView.as_view(), name="race-invite"),
    path("races/<race_id:race>/rematch/", RematchView.as_view(), name="race-rematch"),
]
