"""The groups endpoints; canfield_site.urls includes them under /api/."""

from django.urls import path

from groups.api import views

app_name = "groups"

urlpatterns = [
    path("groups/", views.GroupListView.as_view(), name="list"),
    path("groups/join/", views.JoinView.as_view(), name="join"),
    path("groups/<int:pk>/", views.GroupView.as_view(), name="detail"),
    path("groups/<int:pk>/leave/", views.LeaveView.as_view(), name="leave"),
    path("groups/<int:pk>/invite/", views.InviteView.as_view(), name="invite"),
    path("groups/<int:pk>/members/<str:username>/", views.MemberView.as_view(), name="member"),
    path("groups/<int:pk>/board/", views.BoardView.as_view(), name="board"),
    path("groups/<int:pk>/week/", views.WeekView.as_view(), name="week"),
]
