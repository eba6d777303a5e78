"""SigV4 verification: published test vectors, and a served engine refusing what it must."""

from __future__ import annotations

import hashlib
import hmac
import http.client
import socket
from datetime import UTC, datetime, timedelta

import boto3
import orjson
import pytest
from botocore import UNSIGNED
from botocore.auth import SIGV4_TIMESTAMP, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

from tablewright.server import ServerThread, Verifier
from tablewright.server.sigv4 import canonical_request, signing_key

from ._support import NO_RETRY, create_table

KEY, SECRET = "AKIDTABLEWRIGHT", "tablewright-test-secret"
AWS_EXAMPLE_SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"


def test_signing_key_matches_aws_published_example():
    # AWS General Reference, "Examples of how to derive a signing key for Signature Version 4".
    key = signing_key(AWS_EXAMPLE_SECRET, "20120215", "us-east-1", "iam")
    assert key.hex() == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"


def test_canonical_request_matches_aws_test_suite_get_vanilla():
    # aws-sig-v4-test-suite "get-vanilla": the signature AWS publishes for this request.
    headers = {"host": "example.amazonaws.com", "x-amz-date": "20150830T123600Z"}
    request = canonical_request("GET", "/", "", headers, ["host", "x-amz-date"], b"")
    scope = "20150830/us-east-1/service/aws4_request"
    to_sign = "\n".join(
        ("AWS4-HMAC-SHA256", "20150830T123600Z", scope, hashlib.sha256(request.encode()).hexdigest())
    )
    key = signing_key(AWS_EXAMPLE_SECRET, "20150830", "us-east-1", "service")
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    assert signature == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"


class _SignedAt(SigV4Auth):
    """botocore's signer with the clock set to ``when`` (botocore always signs 'now')."""

    def __init__(self, credentials: Credentials, when: datetime) -> None:
        super().__init__(credentials, "dynamodb", "us-east-1")
        self.when = when

    def add_auth(self, request: AWSRequest) -> None:
        request.context["timestamp"] = self.when.strftime(SIGV4_TIMESTAMP)
        self._modify_request_before_signing(request)
        signature = self.signature(self.string_to_sign(request, self.canonical_request(request)), request)
        self._inject_signature_to_request(request, signature)


def signed(url: str, body: bytes, *, key: str = KEY, secret: str = SECRET, when: datetime | None = None):
    request = AWSRequest(
        method="POST",
        url=url + "/",
        data=body,
        headers={
            "X-Amz-Target": "DynamoDB_20120810.ListTables",
            "Content-Type": "application/x-amz-json-1.0",
        },
    )
    _SignedAt(Credentials(key, secret), when or datetime.now(UTC)).add_auth(request)
    return request


def send(port: int, request: AWSRequest, body: bytes | None = None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {name: value for name, value in request.headers.items()}
    conn.request("POST", "/", body=request.body if body is None else body, headers=headers)
    response = conn.getresponse()
    status, payload = response.status, orjson.loads(response.read())
    conn.close()
    return status, payload


@pytest.fixture
def secured(engine):
    with ServerThread(engine.handle, credentials={KEY: SECRET}) as running:
        yield running


def dynamodb(url: str, key: str = KEY, secret: str = SECRET, **config):
    return boto3.client(
        "dynamodb",
        endpoint_url=url,
        region_name="eu-west-1",
        aws_access_key_id=key,
        aws_secret_access_key=secret,
        config=NO_RETRY.merge(Config(**config)),
    )


def error_of(call) -> tuple[int, str, str]:
    with pytest.raises(ClientError) as caught:
        call()
    error = caught.value.response
    return error["ResponseMetadata"]["HTTPStatusCode"], error["Error"]["Code"], error["Error"]["Message"]


def test_signed_requests_pass(secured):
    client = dynamodb(secured.url)
    create_table(client)
    client.put_item(TableName="items", Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    assert client.get_item(TableName="items", Key={"pk": {"S": "a"}})["Item"]["v"] == {"N": "1"}


def test_unsigned_request_is_missing_authentication_token(secured):
    status, code, message = error_of(dynamodb(secured.url, signature_version=UNSIGNED).list_tables)
    assert (status, code, message) == (
        400,
        "MissingAuthenticationTokenException",
        "Request is missing Authentication Token",
    )


def test_unknown_access_key_is_unrecognized_client(secured):
    status, code, message = error_of(dynamodb(secured.url, key="AKIDNOBODY").list_tables)
    assert (status, code) == (400, "UnrecognizedClientException")
    assert message == "The security token included in the request is invalid."


def test_wrong_secret_is_invalid_signature(secured):
    status, code, message = error_of(dynamodb(secured.url, secret="not-the-secret").list_tables)
    assert (status, code) == (400, "InvalidSignatureException")
    assert message.startswith(
        "The request signature we calculated does not match the signature you provided."
    )


def test_tampered_body_is_invalid_signature(secured):
    request = signed(secured.url, b'{"Limit": 1}')
    assert send(secured.port, request)[0] == 200  # the untouched request is fine
    status, payload = send(secured.port, request, body=b'{"Limit": 2}')
    assert status == 400 and payload["__type"].endswith("#InvalidSignatureException")


def test_stale_date_is_signature_expired(secured):
    status, payload = send(
        secured.port, signed(secured.url, b"{}", when=datetime.now(UTC) - timedelta(minutes=6))
    )
    assert status == 400 and payload["__type"].endswith("#InvalidSignatureException")
    assert payload["message"].startswith("Signature expired: ")
    assert "- 5 min.)" in payload["message"]


def test_future_date_is_not_yet_current(secured):
    status, payload = send(
        secured.port, signed(secured.url, b"{}", when=datetime.now(UTC) + timedelta(minutes=6))
    )
    assert status == 400 and payload["message"].startswith("Signature not yet current: ")


def test_date_within_five_minutes_is_accepted(secured):
    status, _ = send(secured.port, signed(secured.url, b"{}", when=datetime.now(UTC) - timedelta(minutes=4)))
    assert status == 200


def test_verifier_clock_decides_expiry():
    signed_at = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    request = signed("http://127.0.0.1:9", b"{}", when=signed_at)
    headers = {name.lower(): value for name, value in request.headers.items()}
    headers["host"] = "127.0.0.1:9"
    assert (
        Verifier({KEY: SECRET}, clock=lambda: signed_at + timedelta(minutes=1)).verify(
            "POST", "/", "", headers, b"{}"
        )
        == KEY
    )
    late = Verifier({KEY: SECRET}, clock=lambda: signed_at + timedelta(minutes=10))
    with pytest.raises(
        Exception, match="Signature expired: 20240501T120000Z is now earlier than 20240501T120500Z"
    ):
        late.verify("POST", "/", "", headers, b"{}")


@pytest.mark.parametrize(
    ("authorization", "code"),
    [
        ("Basic dXNlcjpwYXNz", "IncompleteSignatureException"),
        (
            "AWS4-HMAC-SHA256 Credential=AKIDTABLEWRIGHT/20240101/us-east-1/dynamodb/aws4_request",
            "IncompleteSignatureException",
        ),
        ("AWS4-HMAC-SHA256 Credential=bad, SignedHeaders=host, Signature=00", "IncompleteSignatureException"),
    ],
)
def test_malformed_authorization_is_refused(secured, authorization, code):
    conn = http.client.HTTPConnection("127.0.0.1", secured.port, timeout=10)
    headers = {
        "Authorization": authorization,
        "X-Amz-Target": "DynamoDB_20120810.ListTables",
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Date": "20240101T000000Z",
    }
    conn.request("POST", "/", body=b"{}", headers=headers)
    response = conn.getresponse()
    payload = orjson.loads(response.read())
    assert response.status == 400 and payload["__type"].endswith("#" + code), payload


def _captured(url: str, body: bytes, *, unsigned_payload: bool = False) -> dict[str, str]:
    """The headers of a request botocore signed, as someone on the path would capture them.

    ``unsigned_payload``: signed with the literal ``UNSIGNED-PAYLOAD`` as payload hash (as S3 clients
    may), announced in X-Amz-Content-Sha256.
    """
    request = AWSRequest(
        method="POST",
        url=url + "/",
        data=body,
        headers={
            "X-Amz-Target": "DynamoDB_20120810.PutItem",
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD"
            if unsigned_payload
            else hashlib.sha256(body).hexdigest(),
        },
    )
    if unsigned_payload:
        request.context["payload_signing_enabled"] = False
    auth = SigV4Auth(Credentials(KEY, SECRET), "dynamodb", "us-east-1")
    if unsigned_payload:
        auth.payload = lambda request: "UNSIGNED-PAYLOAD"  # the hash botocore then signs
    auth.add_auth(request)
    return dict(request.headers.items())


def _post_raw(port: int, headers: dict[str, str], body: bytes) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/", body=body, headers=headers)
    response = conn.getresponse()
    status, payload = response.status, orjson.loads(response.read())
    conn.close()
    return status, payload


def _put(value: str) -> bytes:
    return orjson.dumps({"TableName": "items", "Item": {"pk": {"S": "k"}, "v": {"S": value}}})


def test_captured_signature_cannot_carry_another_body(secured, engine):
    create_table(dynamodb(secured.url))
    original = _put("signed")
    headers = _captured(secured.url, original)
    assert headers["X-Amz-Content-Sha256"] == hashlib.sha256(original).hexdigest()  # signed, and claimed
    forged = _put("swapped")
    status, payload = _post_raw(secured.port, headers, forged)
    assert status == 400 and payload["__type"].endswith("#InvalidSignatureException"), payload
    assert "not the SHA-256 of the body received" in payload["message"]
    # The same headers with the hash of the new body claimed: the signature no longer matches.
    rehashed = {**headers, "X-Amz-Content-Sha256": hashlib.sha256(forged).hexdigest()}
    status, payload = _post_raw(secured.port, rehashed, forged)
    assert status == 400 and payload["__type"].endswith("#InvalidSignatureException"), payload
    # Without the header at all: still the received body's hash, still refused.
    bare = {name: value for name, value in headers.items() if name != "X-Amz-Content-Sha256"}
    assert _post_raw(secured.port, bare, forged)[0] == 400
    assert engine.handle("GetItem", {"TableName": "items", "Key": {"pk": {"S": "k"}}}) == {}
    # The captured request itself, replayed as it was, is a valid request (within the 5 minutes).
    assert _post_raw(secured.port, headers, original)[0] == 200


def test_unsigned_payload_is_refused(secured, engine):
    create_table(dynamodb(secured.url))
    body = _put("unsigned")
    headers = _captured(secured.url, body, unsigned_payload=True)
    status, payload = _post_raw(secured.port, headers, body)
    assert status == 400 and payload["__type"].endswith("#InvalidSignatureException"), payload
    assert "UNSIGNED-PAYLOAD" in payload["message"]
    assert engine.handle("GetItem", {"TableName": "items", "Key": {"pk": {"S": "k"}}}) == {}


def test_scope_for_another_service_is_refused(secured):
    request = AWSRequest(
        method="POST",
        url=secured.url + "/",
        data=b"{}",
        headers={
            "X-Amz-Target": "DynamoDB_20120810.ListTables",
            "Content-Type": "application/x-amz-json-1.0",
        },
    )
    SigV4Auth(Credentials(KEY, SECRET), "s3", "us-east-1").add_auth(request)
    status, payload = _post_raw(secured.port, dict(request.headers.items()), b"{}")
    assert status == 400 and payload["__type"].endswith("#InvalidSignatureException")
    assert payload["message"].startswith("Credential should be scoped to correct service: 'dynamodb'.")


def test_accepted_regions_are_configurable(engine):
    with ServerThread(
        engine.handle, credentials={KEY: SECRET}, regions=["eu-west-1", "eu-central-1"]
    ) as served:
        assert dynamodb(served.url).list_tables()["TableNames"] == []  # signs for eu-west-1
        other = boto3.client(
            "dynamodb",
            endpoint_url=served.url,
            region_name="us-east-1",
            aws_access_key_id=KEY,
            aws_secret_access_key=SECRET,
            config=NO_RETRY,
        )
        status, code, message = error_of(other.list_tables)
    assert (status, code) == (400, "InvalidSignatureException")
    assert message.startswith("Credential should be scoped to a valid region, not 'us-east-1'.")
    assert "eu-central-1, eu-west-1" in message


def test_unauthenticated_request_is_refused_before_its_body_is_sent(secured):
    # With Expect: 100-continue the client waits for the go-ahead before sending the body; a request
    # without credentials gets its refusal instead, so no byte of the body is ever needed.
    with socket.create_connection(("127.0.0.1", secured.port), timeout=10) as sock:
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
            b"Content-Type: application/x-amz-json-1.0\r\nExpect: 100-continue\r\n"
            b"Content-Length: 16000000\r\n\r\n"
        )
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b"MissingAuthenticationTokenException" in answer


def test_signed_request_with_expect_continue_gets_100_then_its_answer(secured):
    body = b"{}"
    request = signed(secured.url, body)
    head = [b"POST / HTTP/1.1", f"Host: 127.0.0.1:{secured.port}".encode()]  # signed as part of the URL
    head += [f"{name}: {value}".encode() for name, value in request.headers.items()]
    head += [b"Expect: 100-continue", b"Content-Length: 2"]
    with socket.create_connection(("127.0.0.1", secured.port), timeout=10) as sock:
        sock.sendall(b"\r\n".join(head) + b"\r\n\r\n")
        interim = sock.recv(65536)
        assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
    assert b'"TableNames"' in answer
