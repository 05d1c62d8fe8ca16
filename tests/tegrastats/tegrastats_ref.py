#!/usr/bin/env python3
"""The project's reference reading of NVIDIA tegrastats lines.

parse(line) splits one line into Fields in order, format(fields) prints them
back (format(parse(line)) == line for every real line in real-lines.jsonl) and
shape(fields) gives the value-free shape of a line, so that what `jetsonctl
tegrastats` prints can be compared field for field with a real board's line of
the same generation. The field kinds and forms are those in the project's
notes on real lines (see README.md); anything else is a ValueError, because a
reference that guesses would let a wrong printer pass.

No dependencies; Python 3.7+.  As a script it reads lines (stdin or a file),
checks that each one parses and round-trips, and prints its shape as JSON.
"""

import dataclasses
import json
import re
import sys
from typing import Any, Dict, List, Optional, Tuple

# Numbers are printed with %d by tegrastats, so a leading zero never occurs;
# refusing one keeps format(parse(x)) == x true for everything parse accepts.
_INT = r"(?:0|[1-9][0-9]*)"
# Temperatures: up to 3 decimals, negative for a power-gated zone (-256C).
_TEMP = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]{1,3})?"

TIMESTAMP_FORM = "MM-DD-YYYY HH:MM:SS"
RAM_FORMS = ("U/TMB (lfb NxSMB)", "U/TMB (lfb NxSkB)")
SWAP_FORM = "U/TMB (cached CMB)"
IRAM_FORM = "U/TkB(lfb FkB)"
CORE_FORMS = ("L%@F", "L%", "off")          # one CPU core; the CPU form is "[f,f,...]"
EMC_FORMS = ("L%@F", "L%")
ENGINE_FORMS = ("F", "off", "L%@F", "@F")
MTS_FORM = "fg X% bg Y%"
TEMP_FORMS = ("TC", "TC/MAXC")
RAIL_FORMS = ("cur/avg", "curmW/avgmW", "curmW/avgmW/maxmW")
# GR3D forms are "L%", "L%@F", "L%@[F,...]" and "@[F,...]": one F per GPC.

# The order every generation prints fields in; engines, temperatures and rails
# repeat, GR3D_FREQ may be followed by GR3D2_FREQ (early R35 AGX Orin).
_RANK = {"timestamp": 0, "ram": 1, "swap": 2, "iram": 3, "cpu": 4, "emc": 5,
         "gr3d": 6, "engine": 7, "mts": 8, "temp": 9, "rail": 10}
_REPEATABLE = ("gr3d", "engine", "temp", "rail")

_NAME = r"[A-Za-z][A-Za-z0-9_]*"
_ENGINE_NAME = r"[A-Z][A-Z0-9_]*"
_GR3D_NAME = r"GR3D[0-9]*_FREQ"


@dataclasses.dataclass
class Field:
    """One field of a line.

    kind:   'timestamp', 'ram', 'swap', 'iram', 'cpu', 'emc', 'gr3d', 'engine',
            'mts', 'temp' or 'rail'.
    name:   the name as printed: 'RAM', 'SWAP', 'IRAM', 'CPU', 'EMC_FREQ',
            'GR3D_FREQ'/'GR3D2_FREQ', 'MTS', the engine, zone or rail name;
            '' for the timestamp.
    form:   the shape of the value, independent of the numbers (see *_FORMS).
    values: the numbers (ints; temperatures are floats; None where the form
            has no such number).
    texts:  the original spelling of numbers that an int cannot keep
            (temperatures: 'cur' and 'max'), so that printing is exact.
    """
    kind: str
    name: str
    form: str
    values: Dict[str, Any]
    texts: Dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def core_forms(self) -> List[str]:
        """For a CPU field, the per-core forms in core order."""
        if self.kind != "cpu":
            raise ValueError("core_forms is for the CPU field, not %r" % self.kind)
        return self.form[1:-1].split(",")


def _fail(toks: List[str], i: int, why: str) -> ValueError:
    shown = toks[i] if i < len(toks) else "<end of line>"
    return ValueError("tegrastats token %d (%r): %s" % (i + 1, shown, why))


def _match(pattern: str, text: str) -> Optional["re.Match"]:
    return re.fullmatch(pattern, text)


def _ints(m: "re.Match", *groups: int) -> List[Optional[int]]:
    return [None if m.group(g) is None else int(m.group(g)) for g in groups]


def _tokens(line: str) -> List[str]:
    if not isinstance(line, str):
        raise TypeError("a tegrastats line is a str, not %s" % type(line).__name__)
    if line.endswith("\n"):           # tolerate the newline of a line read from a file
        line = line[:-1]
    if not line:
        raise ValueError("empty tegrastats line")
    bad = re.search(r"[^\x21-\x7e ]", line)
    if bad:
        raise ValueError("tegrastats line has an unexpected character %r at column %d"
                         % (bad.group(), bad.start() + 1))
    if line.startswith(" ") or line.endswith(" ") or "  " in line:
        raise ValueError("tegrastats fields are separated by single spaces, no leading or trailing space")
    return line.split(" ")


def _parse_one(toks: List[str], i: int) -> Tuple[Field, int]:
    """Recognize the field starting at toks[i]; return it and the next index."""
    tok = toks[i]
    nxt = toks[i + 1] if i + 1 < len(toks) else None

    if i == 0 and _match(r"[0-9]{2}-[0-9]{2}-[0-9]{4}", tok):
        m = re.fullmatch(r"([0-9]{2})-([0-9]{2})-([0-9]{4}) ([0-9]{2}):([0-9]{2}):([0-9]{2})",
                         " ".join(toks[:2]))
        if not m:
            raise _fail(toks, 1, "timestamp needs a time HH:MM:SS after the date")
        mo, d, y, h, mi, s = (int(g) for g in m.groups())
        if not (1 <= mo <= 12 and 1 <= d <= 31 and h < 24 and mi < 60 and s < 61):
            raise _fail(toks, 0, "timestamp out of range")
        return Field("timestamp", "", TIMESTAMP_FORM, dict(month=mo, day=d, year=y, hour=h,
                                                           minute=mi, second=s)), 2

    if tok == "RAM":
        m = _match(r"(%s)/(%s)MB \(lfb (%s)x(%s)(MB|kB)\)" % (_INT, _INT, _INT, _INT),
                   " ".join(toks[i + 1:i + 4]))
        if not m:
            raise _fail(toks, i, "RAM must be 'RAM used/totalMB (lfb NxSMB)' (S in MB or kB)")
        used, total, blocks, size = _ints(m, 1, 2, 3, 4)
        return Field("ram", tok, "U/TMB (lfb NxS%s)" % m.group(5),
                     dict(used=used, total=total, lfb_blocks=blocks, lfb_size=size)), i + 4

    if tok == "SWAP":
        m = _match(r"(%s)/(%s)MB \(cached (%s)MB\)" % (_INT, _INT, _INT), " ".join(toks[i + 1:i + 4]))
        if not m:
            raise _fail(toks, i, "SWAP must be 'SWAP used/totalMB (cached cMB)'")
        used, total, cached = _ints(m, 1, 2, 3)
        return Field("swap", tok, SWAP_FORM, dict(used=used, total=total, cached=cached)), i + 4

    if tok == "IRAM":
        # No space before "(lfb": the IRAM field is two tokens, not three.
        m = _match(r"(%s)/(%s)kB\(lfb (%s)kB\)" % (_INT, _INT, _INT), " ".join(toks[i + 1:i + 3]))
        if not m:
            raise _fail(toks, i, "IRAM must be 'IRAM used/totalkB(lfb fkB)'")
        used, total, lfb = _ints(m, 1, 2, 3)
        return Field("iram", tok, IRAM_FORM, dict(used=used, total=total, lfb=lfb)), i + 3

    # "CPU" is also a rail name (AGX Xavier R32: "CPU 1236/1236"); the list
    # in brackets is what makes it the CPU field.
    if tok == "CPU" and nxt is not None and nxt.startswith("["):
        m = _match(r"\[(.+)\]", nxt)
        if not m:
            raise _fail(toks, i + 1, "CPU must be 'CPU [core,core,...]'")
        cores, forms = [], []
        for item in m.group(1).split(","):
            c = _match(r"(%s)%%(?:@(%s))?" % (_INT, _INT), item)
            if item == "off":
                cores.append(None)
                forms.append("off")
            elif c:
                load, freq = _ints(c, 1, 2)
                cores.append(dict(load=load, freq=freq))
                forms.append("L%@F" if freq is not None else "L%")
            else:
                raise _fail(toks, i + 1, "CPU core %r is none of L%%@F, L%%, off" % item)
        return Field("cpu", tok, "[%s]" % ",".join(forms), dict(cores=cores)), i + 2

    if tok == "EMC_FREQ":
        m = _match(r"(%s)%%(?:@(%s))?" % (_INT, _INT), nxt or "")
        if not m:
            raise _fail(toks, i + 1, "EMC_FREQ must be 'L%@F' or 'L%'")
        load, freq = _ints(m, 1, 2)
        return Field("emc", tok, "L%@F" if freq is not None else "L%", dict(load=load, freq=freq)), i + 2

    if _match(_GR3D_NAME, tok):
        m = _match(r"(?:(%s)%%)?(?:@(%s)|@\[(%s(?:,%s)*)\])?" % (_INT, _INT, _INT, _INT), nxt or "")
        if not m or not nxt:
            raise _fail(toks, i + 1, "%s must be 'L%%', 'L%%@F', 'L%%@[F,...]' or '@[F,...]'" % tok)
        load = None if m.group(1) is None else int(m.group(1))
        form = "" if load is None else "L%"
        if m.group(2) is not None:
            freqs = [int(m.group(2))]
            form += "@F"
        elif m.group(3) is not None:
            freqs = [int(f) for f in m.group(3).split(",")]
            form += "@[%s]" % ",".join("F" * len(freqs))
        else:
            freqs = []
        return Field("gr3d", tok, form, dict(load=load, freqs=freqs)), i + 2

    if tok == "MTS":
        m = _match(r"fg (%s)%% bg (%s)%%" % (_INT, _INT), " ".join(toks[i + 1:i + 5]))
        if not m:
            raise _fail(toks, i, "MTS must be 'MTS fg X% bg Y%'")
        fg, bg = _ints(m, 1, 2)
        return Field("mts", tok, MTS_FORM, dict(fg=fg, bg=bg)), i + 5

    if "@" in tok:
        m = _match(r"(%s)@(%s)C(?:/(%s)C)?" % (_NAME, _TEMP, _TEMP), tok)
        if not m:
            raise _fail(toks, i, "a temperature must be 'name@TC' or 'name@TC/MAXC'")
        texts = {"cur": m.group(2)}
        if m.group(3) is not None:
            texts["max"] = m.group(3)
        return Field("temp", m.group(1), "TC/MAXC" if m.group(3) is not None else "TC",
                     dict(cur=float(m.group(2)), max=None if m.group(3) is None else float(m.group(3))),
                     texts), i + 1

    # "NAME value": a '/' in the value makes it a rail ("GPU 463/463"), else
    # an engine ("APE 150"); both can carry the same kind of name.
    if nxt is None or not _match(_NAME, tok):
        raise _fail(toks, i, "cannot place this token")
    if "/" in nxt:
        m = (_match(r"(%s)/(%s)" % (_INT, _INT), nxt)
             or _match(r"(%s)mW/(%s)mW(?:/(%s)mW)?" % (_INT, _INT, _INT), nxt))
        if not m:
            raise _fail(toks, i + 1, "rail %s must be 'cur/avg', 'curmW/avgmW' or 'curmW/avgmW/maxmW'" % tok)
        cur, avg = _ints(m, 1, 2)
        mx = int(m.group(3)) if m.lastindex == 3 and m.group(3) is not None else None
        form = "cur/avg" if "mW" not in nxt else ("curmW/avgmW/maxmW" if mx is not None else "curmW/avgmW")
        return Field("rail", tok, form, dict(cur=cur, avg=avg, max=mx)), i + 2
    if not _match(_ENGINE_NAME, tok):
        raise _fail(toks, i, "cannot place this token (not an engine name, no rail value)")
    if nxt == "off":
        return Field("engine", tok, "off", dict(load=None, freq=None)), i + 2
    m = _match(r"(?:(%s)%%)?@(%s)" % (_INT, _INT), nxt) or _match(r"()(%s)" % _INT, nxt)
    if not m:
        raise _fail(toks, i + 1, "engine %s must be 'F', 'off', 'L%%@F' or '@F'" % tok)
    load = int(m.group(1)) if m.group(1) else None
    form = "F" if "@" not in nxt else ("L%@F" if load is not None else "@F")
    return Field("engine", tok, form, dict(load=load, freq=int(m.group(2)))), i + 2


def parse(line: str) -> List[Field]:
    """Split a tegrastats line into Fields, in order; ValueError if any token
    cannot be placed, a field is malformed or out of order, or RAM or CPU is
    missing (every real line has both)."""
    toks = _tokens(line)
    fields = []  # type: List[Field]
    i = 0
    while i < len(toks):
        start = i
        f, i = _parse_one(toks, i)
        if fields:
            prev = fields[-1]
            if _RANK[f.kind] < _RANK[prev.kind]:
                raise _fail(toks, start, "%s field after %s field: out of tegrastats' order" % (f.kind, prev.kind))
            if f.kind == prev.kind and f.kind not in _REPEATABLE:
                raise _fail(toks, start, "second %s field" % f.kind)
            if f.kind == "gr3d" and any(g.kind == "gr3d" and g.name == f.name for g in fields):
                raise _fail(toks, start, "second %s field" % f.name)
        fields.append(f)
    kinds = [f.kind for f in fields]
    for need in ("ram", "cpu"):
        if need not in kinds:
            raise ValueError("tegrastats line has no %s field" % need.upper())
    return fields


def _temp_text(f: Field, key: str) -> str:
    value = f.values[key]
    text = f.texts.get(key)
    if text is not None and float(text) == value:
        return text
    # tegrastats prints at most 3 decimals and no trailing zeros: 40.3, 49, -256.
    s = ("%.3f" % value).rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def _format_one(f: Field) -> str:
    v = f.values
    if f.kind == "timestamp" and f.form == TIMESTAMP_FORM:
        return "%02d-%02d-%04d %02d:%02d:%02d" % (v["month"], v["day"], v["year"],
                                                  v["hour"], v["minute"], v["second"])
    if f.kind == "ram" and f.form in RAM_FORMS:
        return "RAM %d/%dMB (lfb %dx%d%s)" % (v["used"], v["total"], v["lfb_blocks"],
                                             v["lfb_size"], f.form[-3:-1])
    if f.kind == "swap" and f.form == SWAP_FORM:
        return "SWAP %d/%dMB (cached %dMB)" % (v["used"], v["total"], v["cached"])
    if f.kind == "iram" and f.form == IRAM_FORM:
        return "IRAM %d/%dkB(lfb %dkB)" % (v["used"], v["total"], v["lfb"])
    if f.kind == "cpu":
        forms = f.core_forms
        if len(forms) != len(v["cores"]) or any(c not in CORE_FORMS for c in forms):
            raise ValueError("CPU form %r does not fit %d cores" % (f.form, len(v["cores"])))
        items = []
        for form, core in zip(forms, v["cores"]):
            if form == "off":
                items.append("off")
            else:
                items.append("%d%%" % core["load"] + ("@%d" % core["freq"] if form == "L%@F" else ""))
        return "CPU [%s]" % ",".join(items)
    if f.kind == "emc" and f.form in EMC_FORMS:
        return "EMC_FREQ %d%%" % v["load"] + ("@%d" % v["freq"] if f.form == "L%@F" else "")
    if f.kind == "gr3d":
        out = "%d%%" % v["load"] if f.form.startswith("L%") else ""
        rest = f.form[2:] if f.form.startswith("L%") else f.form
        if rest == "@F":
            out += "@%d" % v["freqs"][0]
        elif rest == "@[%s]" % ",".join("F" * len(v["freqs"])) and v["freqs"]:
            out += "@[%s]" % ",".join("%d" % x for x in v["freqs"])
        elif rest != "" or not out:
            raise ValueError("GR3D form %r does not fit %d frequencies" % (f.form, len(v["freqs"])))
        return "%s %s" % (f.name, out)
    if f.kind == "engine" and f.form in ENGINE_FORMS:
        value = {"F": lambda: "%d" % v["freq"], "off": lambda: "off",
                 "L%@F": lambda: "%d%%@%d" % (v["load"], v["freq"]), "@F": lambda: "@%d" % v["freq"]}
        return "%s %s" % (f.name, value[f.form]())
    if f.kind == "mts" and f.form == MTS_FORM:
        return "MTS fg %d%% bg %d%%" % (v["fg"], v["bg"])
    if f.kind == "temp" and f.form in TEMP_FORMS:
        out = "%s@%sC" % (f.name, _temp_text(f, "cur"))
        return out + ("/%sC" % _temp_text(f, "max") if f.form == "TC/MAXC" else "")
    if f.kind == "rail" and f.form in RAIL_FORMS:
        if f.form == "cur/avg":
            return "%s %d/%d" % (f.name, v["cur"], v["avg"])
        if f.form == "curmW/avgmW":
            return "%s %dmW/%dmW" % (f.name, v["cur"], v["avg"])
        return "%s %dmW/%dmW/%dmW" % (f.name, v["cur"], v["avg"], v["max"])
    raise ValueError("no way to print a %r field of form %r" % (f.kind, f.form))


def format(fields: List[Field]) -> str:  # noqa: A001 - the name the project asked for
    """Print fields as tegrastats does: single spaces, no trailing space."""
    return " ".join(_format_one(f) for f in fields)


def shape(fields: List[Field], sensor_names: bool = True) -> List[Tuple[str, Optional[str], str]]:
    """The value-free shape of a line: (kind, name, form) per field.  Fixed
    words (RAM, EMC_FREQ, GR3D_FREQ, engine names...) are always kept;
    sensor_names=False drops the names of temperatures and rails (None),
    which differ between a real board and a simulated one."""
    out = []
    for f in fields:
        name = f.name if f.kind != "timestamp" else None
        if not sensor_names and f.kind in ("temp", "rail"):
            name = None
        out.append((f.kind, name, f.form))
    return out


def find(fields: List[Field], kind: str, name: Optional[str] = None) -> List[Field]:
    """The fields of one kind (and name), in line order."""
    return [f for f in fields if f.kind == kind and (name is None or f.name == name)]


def main(argv: List[str]) -> int:
    stream = open(argv[1]) if len(argv) > 1 else sys.stdin
    for number, line in enumerate(stream, 1):
        line = line.rstrip("\n")
        try:
            fields = parse(line)
        except ValueError as e:
            print("line %d: %s" % (number, e), file=sys.stderr)
            return 1
        if format(fields) != line:
            print("line %d: does not print back as read" % number, file=sys.stderr)
            return 1
        print(json.dumps(shape(fields)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
