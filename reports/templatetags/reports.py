"""`{% decision_board as board %}`: the dashboard's data for pages whose view does not give it."""

from django import template

from ..dashboard import decision_board as _board

register = template.Library()


@register.simple_tag(takes_context=True)
def decision_board(context):  # type: ignore[no-untyped-def]
    if context.get("board"):
        return context["board"]
    return _board(team=context.get("current_team"))
