"""The clubs' and follows' API, mounted under ``api/`` by ``config/urls.py``."""

from django.urls import path

from .api import (
    ClubsView,
    ClubView,
    CodeView,
    FollowingView,
    FollowView,
    JoinView,
    LeaveView,
    MemberView,
    OwnerView,
)

urlpatterns = [
    path("clubs/", ClubsView.as_view(), name="clubs"),
    path("clubs/join/", JoinView.as_view(), name="club-join"),
    path("clubs/<str:slug>/", ClubView.as_view(), name="club"),
    path("clubs/<str:slug>/leave/", LeaveView.as_view(), name="club-leave"),
    path("clubs/<str:slug>/code/", CodeView.as_view(), name="club-code"),
    path("clubs/<str:slug>/owner/", OwnerView.as_view(), name="club-owner"),
    path("clubs/<str:slug>/members/<str:username>/", MemberView.as_view(), name="club-member"),
    path("following/", FollowingView.as_view(), name="following"),
    path("players/<str:username>/follow/", FollowView.as_view(), name="follow"),
]
