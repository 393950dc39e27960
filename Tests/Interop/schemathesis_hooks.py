"""Schemathesis hooks for api_schemathesis.py: POST /api/v1/imip takes a mail message
(message/rfc822), which schemathesis has no serializer for; the generated text is sent
as its bytes."""
import schemathesis


@schemathesis.serializer("message/rfc822")
def rfc822(ctx, value):
    return value if isinstance(value, bytes) else str(value).encode()
