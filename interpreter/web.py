"""``lastbreath web``: the engine in the browser, a local server and a single-page app.

An ASGI app (starlette, served by uvicorn: the optional extra ``lastbreath[web]``) that serves
the page's files (``webapp/``: plain JS modules, CSS and an HTML page; no build step) and speaks
the JSON-RPC protocol of ``lastbreath serve`` (docs/protocol.md) over a WebSocket at ``/rpc``:
one message a frame, one reply a frame, through the same dispatcher (``serve.Server``), so the
same methods, params, limits and error codes. Each connection has its own ``Server`` (its own
games), and its requests run one at a time on a thread of their own, so that a long request (a
bot playing a game to its end) never holds up the page's other connections.

A frame larger than the message limit gets error 1005 as a line would; frames beyond the
WebSocket's own limit (16 MiB, the most ``--max-message`` may allow) close that connection with
code 1009, and the server goes on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import webbrowser
from importlib import resources
from pathlib import Path
from typing import Any, Optional

from lastbreath.dsl.ruleset import Ruleset

from .serve import INTERNAL_ERROR, MAX_GAMES, MAX_MESSAGE, MAX_MESSAGE_LIMIT, TOO_LARGE, RpcError, Server

__all__ = ["ASSETS", "app", "missing", "run"]

ASSETS = Path(str(resources.files("lastbreath.interpreter") / "webapp"))
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}


def missing() -> Optional[str]:
    """Why ``lastbreath web`` cannot run here (the extra is not installed), or None."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
        import websockets  # noqa: F401
    except ImportError as err:
        return f"'lastbreath web' needs the web extra: pip install 'lastbreath[web]' ({err.name} is missing)"
    return None


def app(ruleset: Ruleset, max_message: int = MAX_MESSAGE, max_games: int = MAX_GAMES,
        extra_methods: Optional[dict[str, Any]] = None) -> Any:
    """The ASGI app: the page at ``/``, its files at ``/app/NAME``, the protocol at ``/rpc``."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import FileResponse, PlainTextResponse, Response
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    def page(request: Request) -> Response:
        return FileResponse(ASSETS / "index.html", media_type=TYPES[".html"], headers={"Cache-Control": "no-store"})

    def asset(request: Request) -> Response:
        name = request.path_params["name"]
        path = (ASSETS / name).resolve()
        if path.parent != ASSETS.resolve() or not path.is_file() or path.suffix not in TYPES:
            return PlainTextResponse("not found", status_code=404)
        return FileResponse(path, media_type=TYPES[path.suffix], headers={"Cache-Control": "no-store"})

    async def rpc(ws: WebSocket) -> None:
        await ws.accept()
        server = Server(ruleset, max_message, max_games)
        for name, make in (extra_methods or {}).items():
            server.methods[name] = make(server)
        loop = asyncio.get_running_loop()
        worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="lastbreath-web")
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                data = msg.get("text")
                if data is None:
                    data = msg.get("bytes") or b""
                size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
                if size > max_message:
                    reply: Optional[str] = server._dump(server._error(None, RpcError(
                        TOO_LARGE, f"message too large: {size} bytes (the limit is {max_message})",
                        {"limit": max_message})))
                else:
                    try:
                        reply = await loop.run_in_executor(worker, server.handle_line, data)
                    except Exception as err:  # last line of defence, as serve's loop has it
                        reply = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
                            "code": INTERNAL_ERROR, "message": f"internal error: {type(err).__name__}"}})
                if reply is not None:
                    await ws.send_text(reply)
        except WebSocketDisconnect:
            pass
        finally:
            worker.shutdown(wait=False)

    def rule(request: Request) -> Response:
        from .screen import rule_text

        return PlainTextResponse(rule_text(request.path_params["rid"][:40]))

    return Starlette(routes=[Route("/", page), Route("/app/{name}", asset), Route("/rule/{rid}", rule),
                             WebSocketRoute("/rpc", rpc)])


def run(ruleset: Ruleset, host: str = "127.0.0.1", port: int = 8765, open_page: bool = False,
        max_message: int = MAX_MESSAGE, max_games: int = MAX_GAMES, extra_methods: Optional[dict[str, Any]] = None,
        log_level: str = "warning") -> int:
    """Serve the app until interrupted; port 0 takes a free one. The first line printed is the
    page's address (what a script starting it reads); with ``open_page`` the browser opens it."""
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(64)
    url = f"http://{host}:{sock.getsockname()[1]}/"
    config = uvicorn.Config(app(ruleset, max_message, max_games, extra_methods), log_level=log_level,
                            ws_max_size=MAX_MESSAGE_LIMIT, lifespan="off")
    server = uvicorn.Server(config)

    async def main() -> None:
        async def opener() -> None:
            while not server.started:
                await asyncio.sleep(0.05)
            webbrowser.open(url)

        if open_page:
            await asyncio.gather(server.serve(sockets=[sock]), opener())
        else:
            await server.serve(sockets=[sock])

    print(f"lastbreath web: {url} (Ctrl-C stops it)", flush=True)
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    return 0
