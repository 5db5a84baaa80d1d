"""HTTP/1.1 request parsing: httptools (llhttp, C) vs h11 (pure Python) on realistic requests.

Case study 6 of perflab (docs/case-studies.md) swapped one HTTP parser for another. Here one call
parses each raw request of a case, as a server does with the first bytes of a new connection,
into (method, target, headers, body); throughput is in requests/s.

Both contenders produce the same structure: header names lowercased (h11 always lowercases them;
HTTP header names are case-insensitive), values as received, the body de-chunked. The comparator
is "exact", so a parser that loses a header, keeps chunk framing in the body or cuts the query
string off the target is NOT EQUIVALENT.
"""

import perflab

bench = perflab.Benchmark(
    "http_parse",
    description="Parse raw HTTP/1.1 requests into method, target, headers and body",
    compare="exact",
)

BROWSER_GET = (
    b"GET /shop/products/4711?ref=home&utm_source=newsletter HTTP/1.1\r\n"
    b"Host: www.example.com\r\n"
    b"User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n"
    b"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
    b"Accept-Language: en-US,en;q=0.5\r\n"
    b"Accept-Encoding: gzip, deflate, br, zstd\r\n"
    b"Referer: https://www.example.com/\r\n"
    b"Connection: keep-alive\r\n"
    b"Cookie: session=8f2b1c9d4e5a6b7c; theme=dark; cart=3\r\n"
    b"Upgrade-Insecure-Requests: 1\r\n"
    b"Sec-Fetch-Dest: document\r\n"
    b"Sec-Fetch-Mode: navigate\r\n"
    b"Sec-Fetch-Site: same-origin\r\n"
    b"\r\n"
)
JSON_BODY = b'{"order_id": 981, "items": [{"sku": "A-17", "qty": 2}], "note": "leave at the door"}'
API_POST = (
    b"POST /api/v2/orders HTTP/1.1\r\n"
    b"Host: api.example.com\r\n"
    b"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl\r\n"
    b"Content-Type: application/json\r\n"
    b"Accept: application/json\r\n"
    b"X-Request-Id: 6f1c2a8e-9b7d-4c3e-8a5f-0d4e3b2a1c9f\r\n"
    b"Content-Length: " + str(len(JSON_BODY)).encode() + b"\r\n"
    b"\r\n" + JSON_BODY
)


def chunked(*parts):
    """A chunked transfer-coding body: each part as 'size in hex CRLF data CRLF', then a 0 chunk."""
    return b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in parts) + b"0\r\n\r\n"


CHUNKED_UPLOAD = (
    b"PUT /uploads/report.csv HTTP/1.1\r\n"
    b"Host: files.example.com\r\n"
    b"Content-Type: text/csv\r\n"
    b"Transfer-Encoding: chunked\r\n"
    b"\r\n" + chunked(b"day,orders,revenue,refunds\n", b"2024-05-01,311,9120,2\n", b"2024-05-02,298,8874,5\n")
)
HEALTH_CHECK = b"GET /healthz HTTP/1.1\r\nHost: 10.0.0.7:8080\r\nUser-Agent: kube-probe/1.29\r\n\r\n"


def requests_count(requests):
    """Work per call: requests parsed, so throughput is in requests/s."""
    return len(requests)


@bench.case(items=requests_count)
def BROWSER():
    return [BROWSER_GET]


@bench.case(items=requests_count)
def API():
    return [API_POST]


@bench.case(items=requests_count)
def MIXED():
    # A server's day in miniature: mostly page views and API calls, health checks, one upload.
    return [BROWSER_GET] * 4 + [API_POST] * 3 + [HEALTH_CHECK] * 2 + [CHUNKED_UPLOAD]


@bench.contender(setup=True, reference=True)
def h11():
    """h11: a pure-Python HTTP/1.1 state machine (one Connection per request)."""
    import h11

    def parse_one(raw):
        connection = h11.Connection(h11.SERVER)
        connection.receive_data(raw)
        body = []
        while True:
            event = connection.next_event()
            if isinstance(event, h11.Request):
                method, target, headers = event.method, event.target, tuple(event.headers)
            elif isinstance(event, h11.Data):
                body.append(event.data)
            elif isinstance(event, h11.EndOfMessage):
                return method, target, headers, b"".join(body)
            elif event is h11.NEED_DATA:
                raise ValueError("incomplete request")

    def parse(requests):
        return [parse_one(raw) for raw in requests]

    return parse


@bench.contender(setup=True)
def httptools():
    """httptools: Python bindings to llhttp, Node.js's C parser (the one uvicorn uses)."""
    import httptools

    class Collector:
        """The callbacks httptools calls while it parses one request."""

        def __init__(self):
            self.target, self.headers, self.body, self.complete = b"", [], [], False

        def on_url(self, url):
            self.target += url

        def on_header(self, name, value):
            self.headers.append((name.lower(), value))

        def on_body(self, body):
            self.body.append(body)

        def on_message_complete(self):
            self.complete = True

    def parse_one(raw):
        request = Collector()
        parser = httptools.HttpRequestParser(request)
        parser.feed_data(raw)
        if not request.complete:
            raise ValueError("incomplete request")
        return parser.get_method(), request.target, tuple(request.headers), b"".join(request.body)

    def parse(requests):
        return [parse_one(raw) for raw in requests]

    return parse
