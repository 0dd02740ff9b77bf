from django.contrib import admin

from .models import Action, Attempt, DailyDeal, Deal


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
    list_display = ("id", "player", "deal", "ranked", "status", "score", "moves", "verified")
    list_filter = ("status", "ranked", "verified")
    search_fields = ("player__username", "deal__code")
    readonly_fields = ("state", "seq", "started_at", "finished_at", "elapsed_ms")
    inlines = (ActionInline,)
