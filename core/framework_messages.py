"""Django REST framework's messages that players meet, listed so that makemessages puts them in
the project's catalogs (locale/): DRF has no Albanian catalog, and the project's own catalogs
take precedence over an app's, so every language says them in the project's words.

Nothing imports this module at run time: the texts are DRF's own (its fields and exceptions look
them up by the same msgid); keep them identical to DRF's when upgrading it.
"""

from django.utils.translation import gettext_noop

MESSAGES = (
    # rest_framework.fields
    gettext_noop("This field is required."),
    gettext_noop("This field may not be null."),
    gettext_noop("This field may not be blank."),
    gettext_noop("Not a valid string."),
    gettext_noop("A valid integer is required."),
    gettext_noop("Must be a valid boolean."),
    gettext_noop("Ensure this field has no more than {max_length} characters."),
    gettext_noop("Ensure this value is greater than or equal to {min_value}."),
    gettext_noop("Ensure this value is less than or equal to {max_value}."),
    gettext_noop('"{input}" is not a valid choice.'),
    gettext_noop("Invalid data. Expected a dictionary, but got {datatype}."),
    # rest_framework.exceptions
    gettext_noop("Authentication credentials were not provided."),
    gettext_noop("Incorrect authentication credentials."),
    gettext_noop("You do not have permission to perform this action."),
    gettext_noop("Not found."),
    gettext_noop('Method "{method}" not allowed.'),
    gettext_noop('Unsupported media type "{media_type}" in request.'),
    gettext_noop("Request was throttled."),
    # (DRF looks up each form on its own, then chooses by the number)
    gettext_noop("Expected available in {wait} second."),
    gettext_noop("Expected available in {wait} seconds."),
    # rest_framework.authentication
    gettext_noop("Invalid token."),
    gettext_noop("User inactive or deleted."),
)
