from django.apps import AppConfig


class DemoConfig(AppConfig):
    """No models, so nothing of it is shown in the admin: the app holds the demo command."""

    name = "demo"
