"""API routes of the serving app, mounted under /api/v1/ by portal.urls."""

from rest_framework.routers import DefaultRouter

router = DefaultRouter()
urlpatterns = router.urls
