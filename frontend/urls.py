from django.urls import path, re_path

from . import views

app_name = "frontend"

urlpatterns = [
    path("", views.home, name="home"),
    path("how-to-play/", views.rules, name="rules"),
    path("games/<str:game_id>/", views.game, name="game"),
    path("games/<str:game_id>/replay/", views.replay, name="replay"),
    path("watch/", views.watching, name="watch"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    re_path(
        r"^leaderboard/(?P<day>\d{4}-\d{2}-\d{2})/$", views.leaderboard, name="leaderboard-day"
    ),
    re_path(
        r"^leaderboard/(?P<day>\d{4}-\d{2}-\d{2})/solution/$",
        views.solution,
        name="leaderboard-solution",
    ),
    path("players/<str:username>/", views.profile, name="profile"),
    path("groups/", views.group_list, name="groups"),
    path("groups/<int:group_id>/", views.group, name="group"),
    path("groups/join/<str:invite>/", views.group_join, name="group-join"),
    path("leagues/", views.leagues, name="leagues"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.login, name="login"),
    path("logout/", views.logout, name="logout"),
]
