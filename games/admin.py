from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join

from kit.errors import Refusal

from .fairplay import HIDDEN_KNOWLEDGE, REASON_MAX, WEIGHTS, attempt_disqualify, review_clear
from .models import Action, Attempt, DailyDeal, Deal, ProvenDeal, Review, ReviewDecision
from .selectors import replay_url


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ("code", "variant", "number")
    search_fields = ("code",)
    list_filter = ("variant",)


@admin.register(DailyDeal)
class DailyDealAdmin(admin.ModelAdmin):
    list_display = ("date", "variant", "deal", "par")
    list_filter = ("variant",)
    date_hierarchy = "date"
    readonly_fields = ("deal",)  # made by the beat job; no select list of every deal


@admin.register(ProvenDeal)
class ProvenDealAdmin(admin.ModelAdmin):
    """The practice pool (games/practice.py): filled by the beat job; read here."""

    list_display = ("deal", "variant", "par", "proven_at")
    list_filter = ("variant",)
    readonly_fields = ("deal", "variant", "par", "proven_at")


class ActionInline(admin.TabularInline):
    """The action log is evidence: read-only."""

    model = Action
    fields = ("seq", "sent", "action", "ms", "score", "moves")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "player",
        "deal",
        "ranked",
        "status",
        "score",
        "moves",
        "verified",
        "disqualified",
    )
    list_filter = ("status", "ranked", "verified", "disqualified")
    list_select_related = ("player", "deal")
    search_fields = ("player__username", "deal__code")
    # Every field shown as text: no form, so no select list of every player or deal.
    fields = tuple(field.name for field in Attempt._meta.concrete_fields if field.name != "id")
    readonly_fields = fields
    inlines = (ActionInline,)

    # An attempt is evidence (issue 28): read here, changed only through the
    # services that keep the audit trail — the fair-play review's disqualify and
    # clear, on the review's page (games/fairplay.py).
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- fair-play review (games/fairplay.py) ----------------------------------------------------


class DecisionFilter(admin.SimpleListFilter):
    title = "decision"
    parameter_name = "decision"

    def lookups(self, request, model_admin):  # type: ignore[no-untyped-def]
        return [
            ("undecided", "undecided"),
            ("cleared", "cleared"),
            ("disqualified", "disqualified"),
        ]

    def queryset(self, request, queryset):  # type: ignore[no-untyped-def]
        value = self.value()
        if value == "undecided":
            return queryset.filter(decision=Review.Decision.UNDECIDED)
        if value in ("cleared", "disqualified"):
            return queryset.filter(decision=value)
        return queryset


class DecisionInline(admin.TabularInline):
    """Who decided what, when and why: read-only, only ever added to."""

    model = ReviewDecision
    fields = ("decided_at", "decision", "staff_username", "reason")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


class DisqualifyForm(forms.Form):
    reason = forms.CharField(
        max_length=REASON_MAX,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="Required. The player's record shows it; the log keeps it with your name.",
    )


HIDDEN_MARK = format_html("<strong>{}</strong> ", "Hidden knowledge:")
"""Before a reason of ``fairplay.HIDDEN_KNOWLEDGE`` in the queue."""


def _replay_page(attempt_id: int) -> str | None:
    try:
        return reverse("frontend:replay", args=[attempt_id])
    except NoReverseMatch:
        return None


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    """The review queue: highest score first (the sum of the reasons' weights,
    ``fairplay.WEIGHTS``: a reason of hidden knowledge — the day's proof standing,
    another account's exploration — above any pace or link), then flagged ones;
    each reason in words, those of hidden knowledge marked so. The filters
    "flagged: yes" and "decision: undecided" leave what awaits staff. Actions:
    disqualify (asks for a reason on a page of its own) and clear. Nothing here
    is automatic."""

    list_display = (
        "attempt_link",
        "player",
        "daily",
        "result",
        "flagged",
        "score",
        "reason_list",
        "decision",
        "decided_by",
        "computed_at",
    )
    list_display_links = ("player",)  # the attempt column links to the attempt itself
    list_filter = ("flagged", DecisionFilter, "attempt__daily__variant", "attempt__daily__date")
    list_select_related = ("attempt__player", "attempt__daily", "decided_by")
    search_fields = ("attempt__player__username",)
    ordering = ("-score", "-flagged", "-computed_at")
    fields = (
        "attempt_link",
        "player",
        "daily",
        "result",
        "replay_links",
        "flagged",
        "score",
        "reason_list",
        "signal_table",
        "computed_at",
        "decision",
        "decided_by",
        "decided_at",
        "decision_reason",
    )
    readonly_fields = fields
    inlines = (DecisionInline,)
    actions = ("disqualify", "clear")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the review and its decisions are the record

    @admin.display(description="attempt", ordering="attempt_id")
    def attempt_link(self, review: Review) -> str:
        url = reverse("admin:games_attempt_change", args=[review.attempt_id])
        return format_html('<a href="{}">#{} (action log)</a>', url, review.attempt_id)

    @admin.display(description="player", ordering="attempt__player__username")
    def player(self, review: Review) -> str:
        return review.attempt.player.get_username()

    @admin.display(description="daily", ordering="attempt__daily__date")
    def daily(self, review: Review) -> str:
        daily = review.attempt.daily
        return f"{daily.date} {daily.variant}" if daily else "-"

    @admin.display(description="result")
    def result(self, review: Review) -> str:
        a = review.attempt
        off = " — disqualified" if a.disqualified else ""
        return f"{a.status}, {a.score} points, {a.moves} moves, {a.elapsed_ms} ms{off}"

    @admin.display(description="replay")
    def replay_links(self, review: Review) -> str:
        page = _replay_page(review.attempt_id)
        api = replay_url(review.attempt_id)
        links = [
            (url, label) for url, label in ((page, "replay page"), (api, "replay JSON")) if url
        ]
        note = (
            " (open to you once the day is over or you finished your own attempt; the action "
            "log with its times is on the attempt's page)"
        )
        return format_html("{}{}", format_html_join(" · ", '<a href="{}">{}</a>', links), note)

    @admin.display(description="reasons")
    def reason_list(self, review: Review) -> str:
        if not review.reasons:
            return "-"
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                "<li>{}{} <small>({}, weight {})</small></li>",
                (
                    (
                        HIDDEN_MARK if r["code"] in HIDDEN_KNOWLEDGE else "",
                        r["text"],
                        r["code"],
                        WEIGHTS.get(r["code"], 1),
                    )
                    for r in review.reasons
                ),
            ),
        )

    @admin.display(description="signals")
    def signal_table(self, review: Review) -> str:
        return format_html(
            "<table>{}</table>",
            format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", sorted(review.signals.items())),
        )

    @admin.action(
        description="Disqualify the selected results (asks for a reason)", permissions=["change"]
    )
    def disqualify(
        self, request: HttpRequest, queryset: QuerySet[Review]
    ) -> TemplateResponse | None:
        form = DisqualifyForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            done = 0
            for review in queryset:
                try:
                    attempt_disqualify(
                        attempt_id=review.attempt_id,
                        staff=request.user,
                        reason=form.cleaned_data["reason"],
                    )
                    self.log_change(request, review, f"disqualified: {form.cleaned_data['reason']}")
                    done += 1
                except Refusal as exc:
                    self.message_user(
                        request, f"#{review.attempt_id}: {exc.message}", messages.ERROR
                    )
            if done:
                self.message_user(
                    request,
                    f"Disqualified {done} result(s); the leaderboards were updated.",
                    messages.SUCCESS,
                )
            return None
        return TemplateResponse(
            request,
            "admin/games/review/disqualify.html",
            {
                **self.admin_site.each_context(request),
                "title": "Disqualify results",
                "opts": self.model._meta,
                "reviews": queryset.select_related("attempt__player", "attempt__daily"),
                "form": form,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            },
        )

    @admin.action(description="Clear the selected results (reviewed, fine)", permissions=["change"])
    def clear(self, request: HttpRequest, queryset: QuerySet[Review]) -> None:
        done = 0
        for review in queryset:
            try:
                review_clear(attempt_id=review.attempt_id, staff=request.user)
                self.log_change(request, review, "cleared")
                done += 1
            except Refusal as exc:
                self.message_user(request, f"#{review.attempt_id}: {exc.message}", messages.ERROR)
        if done:
            self.message_user(request, f"Cleared {done} result(s).", messages.SUCCESS)
