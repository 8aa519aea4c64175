"""A streaming scanner for saved Prometheus ``query_range`` answers.

Why not ``json.load``: a month of one-minute samples for 64 hosts is hundreds of megabytes of JSON,
and the Python objects ``json.load`` builds for it (a list, an int or float and a str per sample)
take several times the file; the memory goal is at most 1.5x the file. ``ijson`` keeps the memory
down but builds one Python object per number and is several times slower than ``json.load``.

How: the file is read in chunks. Outside the ``values`` arrays only a handful of keys matter
(``status``, ``errorType``, ``error``, ``resultType``, ``warnings``, ``metric``, ``values``,
``value``); one regular expression finds the next of them and the small object or string after it
is decoded with ``json``. A ``values`` array — almost all of the bytes — is never decoded as JSON:
its complete ``[ts, "v"]`` pairs are stripped of brackets and quotes with ``bytes.translate`` and
read by numpy's C number reader in one call, chunk by chunk, so a series of any length costs one
chunk of buffer. A piece that numpy cannot read entirely (a hostile or damaged value) is decoded
pair by pair instead and the bad pairs are counted. Key order, whitespace, CRLF line ends, minified
or pretty output, one answer, a JSON list of answers or answers one after the other (pages) all
read the same.

A ``values`` array is paired with the ``metric`` object of the same result: Prometheus writes the
labels first, but a re-saved file may have them after the values; both orders are handled.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from domain.messages import Message

if TYPE_CHECKING:
    from domain.delivery.series import _Accumulator

CHUNK = 1 << 20
#: Longest label set, string or unbroken run inside a values array the scanner holds: a real
#: answer's are a few hundred bytes; a hostile file must not make the buffer (and the re-scans
#: after each chunk) grow with the file.
MAX_ITEM = 1 << 20
_KEY = re.compile(
    rb'"(metric|values|value|status|errorType|error|resultType|warnings|infos)"\s*:\s*'
)
_STRING = re.compile(rb'"((?:[^"\\]|\\.)*)"', re.DOTALL)
_FLAT_OBJECT = re.compile(rb'\{(?:[^{}"]|"(?:[^"\\]|\\.)*")*\}', re.DOTALL)
_FLAT_LIST = re.compile(rb'\[(?:[^\[\]{}"]|"(?:[^"\\]|\\.)*")*\]', re.DOTALL)
_ARRAY_END = re.compile(rb"\]\s*\]")
_EMPTY = re.compile(rb"\s*\]")
_NOT_NUMBER = b'[]"'


def _error(code: str, en: str, zh: str) -> Exception:
    from domain.delivery.series import IngestError

    return IngestError([Message(code, en, zh)])


def _truncated(at: int | None = None) -> Exception:
    where_en = f" (cut off at byte {at}?)" if at is not None else ""
    where_zh = f"（在第 {at} 字节处被截断？）" if at is not None else ""
    return _error(
        "prometheus_truncated",
        f"The Prometheus answer is not valid JSON{where_en}: it ends in the middle, the file is "
        f"incomplete (an interrupted download?). Save the query_range answer again.",
        f"Prometheus 结果不是有效的 JSON{where_zh}：文件在中途结束，内容不完整（下载中断？）。"
        f"请重新保存 query_range 结果。",
    )


class _Scan:
    def __init__(self, stream: BinaryIO, acc: _Accumulator, default_metric: str) -> None:
        self.stream = stream
        self.acc = acc
        self.default_metric = default_metric
        self.buf = b""
        self.pos = 0
        self.eof = False
        self.labels: dict[str, str] | None = None  # a metric object waiting for its values
        self.orphans: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
        self.open_values: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] | None = None
        self.error: dict[str, str] | None = None
        self.statuses = 0
        self.saw_matrix = False
        self.saw_values = False
        self.warnings: list[str] = []
        self.size = 0  # bytes read so far
        self.last_byte = b""  # the last byte that is not white space

    # --- buffer ---------------------------------------------------------------------------------
    def more(self) -> None:
        chunk = self.stream.read(CHUNK)
        if not chunk:
            self.eof = True
        else:
            self.size += len(chunk)
            self.last_byte = chunk.rstrip()[-1:] or self.last_byte
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0

    def need(self, match: re.Match[bytes] | None, start: int) -> bool:
        """True when ``match`` is missing or touches the end of the buffer while more may come."""
        if match is None or match.end() >= len(self.buf):
            if len(self.buf) - start > MAX_ITEM:
                raise _oversized()
            if self.eof:
                if match is None:
                    raise _truncated(self.size)
                return False
            self.pos = start
            self.more()
            return True
        return False

    # --- keys -----------------------------------------------------------------------------------
    def run(self) -> None:
        self.more()
        while True:
            if self.open_values is not None:
                self.read_values()
                continue
            m = _KEY.search(self.buf, self.pos)
            if m is None or m.end() >= len(self.buf):
                if self.eof:
                    break
                # Keep the tail: a key may be split across two chunks.
                self.pos = max(self.pos, len(self.buf) - 64) if m is None else m.start()
                self.more()
                continue
            self.dispatch(m.group(1), m.start(), m.end())
        self.flush_error()
        # An answer (or a list of answers) ends with its closing brace or bracket; a file that
        # stops elsewhere was cut off, whatever the keys read so far said.
        if self.size and self.last_byte not in (b"}", b"]"):
            raise _truncated(self.size)

    def dispatch(self, key: bytes, key_start: int, at: int) -> None:
        if key in (b"status", b"errorType", b"error", b"resultType"):
            s = _STRING.match(self.buf, at)
            if self.need(s, key_start):
                return
            assert s is not None
            self.pos = s.end()
            self.on_string(key.decode(), json.loads(s.group(0)))
        elif key == b"metric":
            o = _FLAT_OBJECT.match(self.buf, at)
            if self.need(o, key_start):
                return
            if o is None:  # a nested metric object: not a Prometheus answer's shape
                self.pos = at
                return
            self.pos = o.end()
            self.on_labels(json.loads(o.group(0)))
        elif key == b"values":
            if self.buf[at : at + 1] != b"[":
                self.pos = at
                return
            self.pos = at + 1
            self.saw_values = True
            self.open_values = []
        elif key == b"value":
            raise _not_range("vector")
        else:  # warnings / infos: a list of strings, said in a note
            lst = _FLAT_LIST.match(self.buf, at)
            if self.need(lst, key_start):
                return
            self.pos = at if lst is None else lst.end()
            if lst is not None:
                self.warnings += [str(w) for w in json.loads(lst.group(0))]

    def on_string(self, key: str, value: str) -> None:
        if key == "status":
            self.flush_error()
            self.statuses += 1
            self.acc.pages += 1
            if value != "success":
                self.error = {"status": value}
        elif key in ("errorType", "error"):
            if self.error is None:
                self.error = {"status": "error"}
            self.error[key] = value
        elif value == "matrix":
            self.saw_matrix = True
        else:
            raise _not_range(value)

    def flush_error(self) -> None:
        if self.error is None:
            return
        kind = self.error.get("errorType", "")
        text = self.error.get("error", "")
        page = max(self.statuses, 1)
        raise _error(
            "prometheus_error",
            f"Prometheus answered with an error (page {page}): {kind} {text}".strip()
            + ". Nothing was imported; fix the query or the range and save the answer again.",
            f"Prometheus 返回了错误（第 {page} 页）：{kind} {text}".strip()
            + "。未导入任何数据；请修改查询或时间范围后重新保存结果。",
        )

    # --- series ---------------------------------------------------------------------------------
    def on_labels(self, labels: object) -> None:
        if not isinstance(labels, dict):
            return
        clean = {str(k): str(v) for k, v in labels.items()}
        if self.orphans:  # values came first in this result
            for ts, values in self.orphans:
                self.store(clean, ts, values)
            self.orphans = []
        else:
            self.labels = clean

    def read_values(self) -> None:
        parts = self.open_values
        assert parts is not None
        empty = _EMPTY.match(self.buf, self.pos) if not parts else None
        if empty is not None:
            self.pos = empty.end()
            self.close_values(parts)
            return
        end = _ARRAY_END.search(self.buf, self.pos)
        if end is not None:
            parts.append(self.convert(self.buf[self.pos : end.start() + 1]))
            self.pos = end.end()
            self.close_values(parts)
            return
        if self.eof:
            raise _truncated(self.size)
        last_open = self.buf.rfind(b"[", self.pos)
        if last_open <= self.pos and len(self.buf) - self.pos > MAX_ITEM:
            raise _oversized()
        if last_open > self.pos:
            parts.append(self.convert(self.buf[self.pos : last_open]))
            self.pos = last_open
        self.more()

    def close_values(self, parts: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]) -> None:
        self.open_values = None
        ts = np.concatenate([p[0] for p in parts]) if parts else np.empty(0)
        values = np.concatenate([p[1] for p in parts]) if parts else np.empty(0)
        if self.labels is not None:
            self.store(self.labels, ts, values)
            self.labels = None
        else:
            self.orphans.append((ts, values))

    def store(self, labels: dict[str, str], ts: np.ndarray[Any, Any], values: Any) -> None:
        from domain.delivery.series import series_labels

        host, device, metric = series_labels(labels, self.default_metric)
        key = self.acc.key_for(host, device, metric)
        if key is None:
            self.acc.set_aside(host, int(ts.size))
        elif ts.size:
            self.acc.extend(key, ts, values)

    def convert(self, piece: bytes) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """``[ts,"v"],[ts,"v"],`` (any whitespace) → (ts, values) arrays."""
        pairs = piece.count(b"[")
        flat = piece.translate(None, _NOT_NUMBER).strip().rstrip(b",")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                numbers = np.fromstring(flat, dtype=np.float64, sep=",")
        except (ValueError, DeprecationWarning):
            numbers = None
        if numbers is not None and numbers.size == 2 * pairs:
            return numbers[0::2].copy(), numbers[1::2].copy()
        return self.convert_slowly(piece)

    def convert_slowly(self, piece: bytes) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        ts: list[float] = []
        values: list[float] = []
        for m in re.finditer(rb"\[([^\[\]]*)\]", piece):
            try:
                t_raw, v_raw = json.loads(b"[" + m.group(1) + b"]")
                t, v = float(t_raw), float(v_raw)
            except (ValueError, TypeError):
                self.acc.unparseable += 1
                continue
            ts.append(t)
            values.append(v)
        return np.array(ts, dtype=np.float64), np.array(values, dtype=np.float64)


def _oversized() -> Exception:
    return _error(
        "prometheus_oversized_item",
        "This file holds a label set, a string or a run of values over 1 MB long: it is not a "
        "Prometheus query_range answer.",
        "该文件中有超过 1 MB 的标签集、字符串或数值片段：不是 Prometheus query_range 结果。",
    )


def _not_range(kind: str) -> Exception:
    return _error(
        "prometheus_not_range",
        f"This Prometheus answer holds a {kind!r} result, not a range (matrix): save the answer of "
        f"/api/v1/query_range (start, end and step), not of an instant query.",
        f"该 Prometheus 结果的类型为 {kind!r}，不是时间范围（matrix）：请保存 /api/v1/query_range"
        f"（带 start、end、step）的结果，而不是即时查询的结果。",
    )


def scan(stream: BinaryIO, acc: _Accumulator, *, default_metric: str) -> list[Message]:
    """Feed every series of the answer(s) in ``stream`` to ``acc``; return notes to show."""
    s = _Scan(stream, acc, default_metric)
    try:
        s.run()
    except UnicodeDecodeError as exc:
        raise _error(
            "prometheus_not_utf8",
            "The Prometheus answer is not UTF-8 JSON text.",
            "Prometheus 结果不是 UTF-8 编码的 JSON 文本。",
        ) from exc
    if not s.saw_values:
        if s.statuses and not s.error:
            return [
                Message(
                    "prometheus_empty",
                    "The Prometheus answer holds no series: the query matched nothing in that "
                    "range.",
                    "Prometheus 结果中没有任何序列：该查询在此时间范围内没有匹配的数据。",
                )
            ]
        raise _error(
            "prometheus_not_answer",
            "This file is not a saved Prometheus query_range answer (no status and no values).",
            "该文件不是保存的 Prometheus query_range 结果（没有 status，也没有 values）。",
        )
    notes: list[Message] = []
    if s.orphans:  # values whose labels never came
        acc.unparseable += sum(int(t.size) for t, _ in s.orphans)
    if s.warnings:
        shown = "; ".join(s.warnings[:3])
        notes.append(
            Message(
                "prometheus_warnings",
                f"Prometheus added warnings to its answer: {shown}",
                f"Prometheus 在结果中附带了警告：{shown}",
            )
        )
    return notes
