"""Under ASGI (Daphne) the whole middleware stack runs in the request's thread at once: Django runs
every middleware below the lowest synchronous-only one in async mode, where each hook of Django's
own middleware is a hop from the event loop to the thread and back (docs/performance.md, "Actions:
where the time of a request goes": 9 hops a request, 6 with none below it)."""

from django.conf import settings
from django.utils.module_loading import import_string


def test_the_last_middleware_is_a_synchronous_only_one():
    classes = [import_string(path) for path in settings.MIDDLEWARE]
    sync_only = [i for i, cls in enumerate(classes) if not getattr(cls, "async_capable", False)]

    assert sync_only, "none synchronous-only: Django's own would run in async mode, hop by hop"
    assert sync_only[-1] == len(classes) - 1, (
        f"{settings.MIDDLEWARE[sync_only[-1] + 1 :]} would run in async mode, below "
        f"{settings.MIDDLEWARE[sync_only[-1]]}: put a synchronous-only middleware last"
    )
