"""libghostty-vt's C API through cffi, loaded without parsing its 80 KB of declarations.

``import pyghostty`` parses the whole ABI with pycparser on every start: ~200 ms, more
than tether's budget for the agent's first frame. The same declarations (pyghostty's
own, so its library and ABI match) are parsed once into an out-of-line cffi module,
kept in the user's cache keyed by their hash, which loads in a few milliseconds.
"""

from __future__ import annotations

import importlib.util
import os
import zlib
from pathlib import Path

__all__ = ["Vt", "cell_bits", "check", "ffi", "lib", "library_path"]

# Layout twins of the tagged unions passed by value (pyghostty's _ffi.py explains why):
# cffi in ABI mode cannot pass a union, and a struct of the same layout calls the same.
TWINS = """
typedef struct { uint16_t x; uint32_t y; uint64_t _pad; } GhosttyPointValueS;
typedef struct { GhosttyPointTag tag; GhosttyPointValueS value; } GhosttyPointS;
"""


def _package_dir() -> Path:
    spec = importlib.util.find_spec("pyghostty")  # finds it without running its import
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("pyghostty is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def library_path() -> str:
    """pyghostty's libghostty-vt (``PYGHOSTTY_LIB`` overrides it, as for pyghostty)."""
    override = os.environ.get("PYGHOSTTY_LIB")
    if override:
        return override
    for ext in (".so", ".dylib", ".dll"):
        path = _package_dir() / "_lib" / f"libghostty-vt{ext}"
        if path.exists():
            return str(path)
    raise ImportError(f"libghostty-vt not found in {_package_dir() / '_lib'}")


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tether"


def _build(cdef_source: bytes, target: Path, library: str) -> None:
    """Parse the declarations once and write the out-of-line module (atomically), with
    the bit positions of a raw cell from the library's type manifest (not ABI: they are
    read from the library itself, and kept with the module built for it)."""
    import contextlib
    import io
    import json
    import tempfile

    from cffi import FFI

    namespace: dict = {}
    exec(compile(cdef_source, "pyghostty/_cdef.py", "exec"), namespace)
    builder = FFI()
    builder.cdef(namespace["CDEF"])
    builder.cdef(TWINS)
    builder.set_source(target.stem, None)
    manifest = json.loads(builder.string(builder.dlopen(library).ghostty_type_json()).decode())
    bits = manifest["types"]["GhosttyCell"]["bits"]
    cell_bits = {name: (field["lsb"], field["width"]) for name, field in bits.items()}
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    os.close(fd)
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # cffi says "generating ..."
            builder.emit_python_code(tmp)
        with open(tmp, "a", encoding="utf-8") as handle:
            handle.write(f"\nCELL_BITS = {cell_bits!r}\n")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _key(*paths: Path) -> str:
    """Names the declarations and the library a module was built from, by their stat
    (reading and hashing 80 KB at every start would cost more than the load)."""
    parts = [f"{st.st_size}:{st.st_mtime_ns}" for st in (p.stat() for p in paths)]
    return f"{zlib.crc32(('|'.join(parts) + TWINS).encode()):08x}"


def _load():
    cdef = _package_dir() / "_cdef.py"
    library = library_path()
    target = _cache_dir() / f"ghostty_abi_{_key(cdef, Path(library))}.py"
    if not target.exists():
        try:
            _build(cdef.read_bytes(), target, library)
        except OSError:  # no writable cache: build it where it can be, every time
            import tempfile

            target = Path(tempfile.mkdtemp(prefix="tether-ghostty-")) / target.name
            _build(cdef.read_bytes(), target, library)
    spec = importlib.util.spec_from_file_location(target.stem, target)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    loaded = module.ffi
    return loaded, loaded.dlopen(library), module.CELL_BITS


ffi, lib, cell_bits = _load()


def check(result: int, what: str) -> None:
    if result:
        raise RuntimeError(f"libghostty-vt: {what} failed ({result})")


# What a history row takes in libghostty-vt's pages, with room to spare (measured: ~9 bytes
# a cell, 67 a row of one column).
BYTES_PER_CELL = 12
BYTES_PER_ROW = 96


class Vt:
    """One libghostty-vt terminal: bytes in, replies to ``on_reply``, state out."""

    def __init__(self, cols: int, rows: int, scrollback: int, on_reply) -> None:
        handle = ffi.new("GhosttyTerminal*")
        check(lib.ghostty_terminal_new(ffi.NULL, handle, cols, rows), "terminal_new")
        self.handle = handle[0]
        self._scrollback = scrollback
        self._set(lib.GHOSTTY_TERMINAL_OPT_SCROLLBACK_MAX_LINES, ffi.new("size_t*", scrollback))
        self._room_for(cols)
        # Kept referenced: the library calls it for as long as the terminal lives.
        self._reply = ffi.callback(
            "GhosttyTerminalWritePtyFn", lambda _t, _u, data, n: on_reply(ffi.buffer(data, n)[:])
        )
        self._set(lib.GHOSTTY_TERMINAL_OPT_WRITE_PTY, self._reply)
        self._u16 = ffi.new("uint16_t*")
        self._size = ffi.new("size_t*")

    def _set(self, option: int, value) -> None:
        check(lib.ghostty_terminal_set(self.handle, option, value), f"terminal_set {option}")

    def feed(self, data: bytes) -> None:
        lib.ghostty_terminal_vt_write(self.handle, data, len(data))

    def _get16(self, key: int) -> int:
        lib.ghostty_terminal_get(self.handle, key, self._u16)
        return self._u16[0]

    @property
    def cursor(self) -> tuple[int, int]:
        return (
            self._get16(lib.GHOSTTY_TERMINAL_DATA_CURSOR_X),
            self._get16(lib.GHOSTTY_TERMINAL_DATA_CURSOR_Y),
        )

    @property
    def cursor_y(self) -> int:
        return self._get16(lib.GHOSTTY_TERMINAL_DATA_CURSOR_Y)

    @property
    def scrollback_rows(self) -> int:
        lib.ghostty_terminal_get(self.handle, lib.GHOSTTY_TERMINAL_DATA_SCROLLBACK_ROWS, self._size)
        return self._size[0]

    def _room_for(self, cols: int) -> None:
        """The history also has a cap in bytes (10,000 by default: ~9 rows of 120 columns
        would be kept, the rest dropped): room for ``scrollback`` rows of ``cols``."""
        room = self._scrollback * (cols * BYTES_PER_CELL + BYTES_PER_ROW)
        self._set(lib.GHOSTTY_TERMINAL_OPT_SCROLLBACK_MAX_BYTES, ffi.new("size_t*", room))

    def resize(self, cols: int, rows: int) -> None:
        check(lib.ghostty_terminal_resize(self.handle, cols, rows, 8, 16), "resize")
        self._room_for(cols)

    def close(self) -> None:
        if self.handle is not None:
            lib.ghostty_terminal_free(self.handle)
            self.handle = None

    def __del__(self) -> None:
        self.close()
