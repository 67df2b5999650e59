"""The games endpoints; canfield_site.urls includes them under /api/."""

from django.urls import path

from games.api import analysis, player_games, views

app_name = "games"

urlpatterns = [
    path("games/", views.GameListView.as_view(), name="list"),
    path("games/<int:pk>/", views.GameDetailView.as_view(), name="detail"),
    path("games/<int:pk>/actions/", views.GameActionView.as_view(), name="actions"),
    path("games/<int:pk>/finish/", views.GameFinishView.as_view(), name="finish"),
    path("games/<int:pk>/resign/", views.GameResignView.as_view(), name="resign"),
    path("games/<int:pk>/record/", views.GameRecordView.as_view(), name="record"),
    path("games/<int:pk>/hint/", views.GameHintView.as_view(), name="hint"),
    path("games/<int:pk>/analysis/", analysis.GameAnalysisView.as_view(), name="analysis"),
    path("games/<int:pk>/verdict/", views.GameVerdictView.as_view(), name="verdict"),
    path(
        "players/<str:username>/games/", player_games.PlayerGamesView.as_view(), name="player-games"
    ),
]
