"""Reading ``.npy`` members without ever unpickling, and writing ``None`` as Chainer 7 did.

Chainer 7.8.1 saved ``None`` (an uninitialized parameter, an empty state) as
``numpy.save(numpy.asarray(None))``: a 0-d array of dtype object, whose payload is a
pickle of that array. Unpickling runs arbitrary code, so we never do it. Instead the
payload is *parsed* with :mod:`pickletools` (a pure parser) and evaluated symbolically —
no import, no call — and accepted only if it is exactly the pickle of a 0-d object array
holding ``None``, as NumPy 1.x and 2.x write it with any pickle protocol. Every other
object array is refused.
"""

from __future__ import annotations

import io
import pickle
import pickletools
from typing import Any

import numpy
import numpy.lib.format as npy_format

# Largest payload we parse: the pickle of array(None, dtype=object) is ~150 bytes.
_MAX_NONE_PAYLOAD = 1024

_MARK = object()

# The pickle of numpy.asarray(None) with protocol 3, referring to numpy.core.multiarray as
# NumPy 1.x (the NumPy of Chainer 7.8.1) writes it, so that files we save load there too.
# It is what pickle.dumps(numpy.asarray(None), protocol=3) gives under NumPy 1.x.
_NONE_PICKLE = (
    b"\x80\x03"  # PROTO 3
    b"cnumpy.core.multiarray\n_reconstruct\nq\x00"  # GLOBAL numpy.core.multiarray._reconstruct
    b"cnumpy\nndarray\nq\x01"  # GLOBAL numpy.ndarray
    b"K\x00\x85q\x02"  # (0,)
    b"C\x01bq\x03"  # b'b'
    b"\x87q\x04Rq\x05"  # _reconstruct(ndarray, (0,), b'b')
    b"(K\x01)"  # state: (1, (),
    b"cnumpy\ndtype\nq\x06X\x02\x00\x00\x00O8q\x07\x89\x88\x87q\x08Rq\t"  # dtype('O8', False, True)
    b"(K\x03X\x01\x00\x00\x00|q\nNNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tq\x0bb"  # dtype state
    b"\x89]q\x0cNatq\rb."  # False, [None]) BUILD STOP
)


# Symbolic values are tuples tagged with private sentinels, so that no tuple a pickle can
# build (its items are only strings, numbers, None and containers) ever equals one.
_GLOBAL = object()  # (_GLOBAL, module, name): a reference, never imported
_CALL = object()  # (_CALL, callable, args): a call, never made
_BUILD = object()  # (_BUILD, obj, state): a __setstate__, never run


def _global(module: str, name: str) -> tuple[Any, ...]:
    return (_GLOBAL, module, name)


_RECONSTRUCT = (_global("numpy.core.multiarray", "_reconstruct"), _global("numpy._core.multiarray", "_reconstruct"))
_NDARRAY = _global("numpy", "ndarray")
_DTYPE = _global("numpy", "dtype")
_CODECS_ENCODE = _global("_codecs", "encode")
_OBJECT_DTYPE_STATE = (3, "|", None, None, None, -1, -1, 63)


def _tagged(value: Any, tag: object) -> bool:
    return isinstance(value, tuple) and len(value) == 3 and value[0] is tag


class _NotNone(Exception):
    pass


def _evaluate(payload: bytes) -> Any:
    """Symbolically evaluate a pickle made only of the opcodes ``array(None)`` needs."""
    stack: list[Any] = []
    memo: dict[int, Any] = {}

    def pop_to_mark() -> list[Any]:
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is _MARK:
                items = stack[i + 1 :]
                del stack[i:]
                return items
        raise _NotNone

    for opcode, arg, position in pickletools.genops(payload):
        name = opcode.name
        if name == "PROTO":
            if not 2 <= int(arg) <= pickle.HIGHEST_PROTOCOL:
                raise _NotNone
            continue
        if name == "FRAME":
            # One frame holding the rest of the pickle (1 opcode byte + 8 length bytes).
            if position + 9 + int(arg) != len(payload):
                raise _NotNone
            continue
        if name == "GLOBAL":
            module, _, attr = arg.partition(" ")
            stack.append(_global(module, attr))
        elif name == "STACK_GLOBAL":
            attr, module = stack.pop(), stack.pop()
            if not (isinstance(module, str) and isinstance(attr, str)):
                raise _NotNone
            stack.append(_global(module, attr))
        elif name in ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"):
            stack.append(str(arg))
        elif name in ("SHORT_BINBYTES", "BINBYTES", "BINBYTES8"):
            stack.append(bytes(arg))
        elif name in ("BININT1", "BININT2", "BININT", "INT", "LONG1"):
            if isinstance(arg, bool):
                raise _NotNone
            stack.append(int(arg))
        elif name == "NEWTRUE":
            stack.append(True)
        elif name == "NEWFALSE":
            stack.append(False)
        elif name == "NONE":
            stack.append(None)
        elif name == "EMPTY_TUPLE":
            stack.append(())
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            n = int(name[-1])
            if len(stack) < n:
                raise _NotNone
            items = stack[-n:]
            del stack[-n:]
            stack.append(tuple(items))
        elif name == "MARK":
            stack.append(_MARK)
        elif name == "TUPLE":
            stack.append(tuple(pop_to_mark()))
        elif name == "EMPTY_LIST":
            stack.append([])
        elif name == "APPEND":
            value = stack.pop()
            if not stack or not isinstance(stack[-1], list):
                raise _NotNone
            stack[-1].append(value)
        elif name == "APPENDS":
            items = pop_to_mark()
            if not stack or not isinstance(stack[-1], list):
                raise _NotNone
            stack[-1].extend(items)
        elif name in ("BINPUT", "LONG_BINPUT", "PUT"):
            memo[int(arg)] = stack[-1]
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1]
        elif name in ("BINGET", "LONG_BINGET", "GET"):
            stack.append(memo[int(arg)])
        elif name == "REDUCE":
            args, func = stack.pop(), stack.pop()
            stack.append((_CALL, func, args))
        elif name == "BUILD":
            state, obj = stack.pop(), stack.pop()
            stack.append((_BUILD, obj, state))
        elif name == "STOP":
            if len(stack) != 1:
                raise _NotNone
            return stack[0]
        else:
            raise _NotNone
    raise _NotNone


def _normalize_bytes(value: Any) -> Any:
    # Protocol 2 cannot encode bytes natively and writes _codecs.encode('b', 'latin1').
    if _tagged(value, _CALL) and value[1] == _CODECS_ENCODE and value[2] == ("b", "latin1"):
        return b"b"
    return value


def is_pickled_none(payload: bytes) -> bool:
    """Whether ``payload`` is exactly the pickle of ``numpy.asarray(None)`` (any protocol,
    NumPy 1.x or 2.x module path). Nothing is imported or executed to decide."""
    if len(payload) > _MAX_NONE_PAYLOAD:
        return False
    try:
        value = _evaluate(payload)
    except Exception:
        # Malformed pickles fail to parse in many ways; none of them is None.
        return False
    if not (_tagged(value, _BUILD) and _tagged(value[1], _CALL)):
        return False
    _, (_, func, args), state = value
    if not any(func == r for r in _RECONSTRUCT) or not isinstance(args, tuple) or len(args) != 3:
        return False
    if args[0] != _NDARRAY or args[1] != (0,) or _normalize_bytes(args[2]) != b"b":
        return False
    if not (isinstance(state, tuple) and len(state) == 5):
        return False
    version, shape, dtype, fortran, data = state
    if version != 1 or shape != () or fortran is not False or data != [None] or data[0] is not None:
        return False
    if not (_tagged(dtype, _BUILD) and _tagged(dtype[1], _CALL)):
        return False
    _, (_, dtype_func, dtype_args), dtype_state = dtype
    return dtype_func == _DTYPE and dtype_args == ("O8", False, True) and dtype_state == _OBJECT_DTYPE_STATE


def is_none_array(value: Any) -> bool:
    """Whether ``value`` is how a serializer stores ``None``: ``numpy.asarray(None)``."""
    return isinstance(value, numpy.ndarray) and value.dtype == object and value.shape == () and value[()] is None


def none_npy_bytes() -> bytes:
    """The complete ``.npy`` file NumPy writes for ``numpy.asarray(None)`` (with the
    NumPy 1.x module path in the pickle)."""
    buffer = io.BytesIO()
    npy_format.write_array_header_1_0(buffer, {"descr": "|O", "fortran_order": False, "shape": ()})
    return buffer.getvalue() + _NONE_PICKLE


class UnsafeEntryError(ValueError):
    """An entry holds pickled Python objects, which we refuse to load."""


def holds_none(stream: Any, describe: str) -> bool:
    """Inspect the header of the ``.npy`` in ``stream``: ``True`` if it holds a pickled
    ``None``, ``False`` if it is a plain array (to be read with ``allow_pickle=False``).

    Raises:
        UnsafeEntryError: the entry holds any other Python object.
    """
    version = npy_format.read_magic(stream)
    readers = {(1, 0): npy_format.read_array_header_1_0, (2, 0): npy_format.read_array_header_2_0}
    reader = readers.get(version)
    if reader is None:
        # Other header versions are read by NumPy, which refuses object arrays itself.
        return False
    shape, _, dtype = reader(stream)
    if not dtype.hasobject:
        return False
    if shape == () and is_pickled_none(stream.read(_MAX_NONE_PAYLOAD + 1)):
        return True
    raise UnsafeEntryError(
        f"{describe} holds Python objects (dtype object, shape {shape}); loading it would unpickle data, "
        "which can run arbitrary code, so it is refused. Only arrays, scalars, strings and None (as "
        "written by save_npz or Chainer 7.8.1) can be loaded"
    )
