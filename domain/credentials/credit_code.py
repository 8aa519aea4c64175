"""Unified social credit code (统一社会信用代码, GB 32100-2015): check character and parsing."""

from __future__ import annotations

import unicodedata

from domain.credentials.formats import CredentialFormatError, _fail, fold_credential

CREDIT_CODE_ALPHABET = "0123456789ABCDEFGHJKLMNPQRTUWXY"
_CREDIT_VALUE = {char: value for value, char in enumerate(CREDIT_CODE_ALPHABET)}
_CREDIT_WEIGHTS = tuple(pow(3, i, 31) for i in range(17))
# The standard drops these letters because they are misread as the digits/letters shown.
_CONFUSABLE = {"I": "1", "O": "0", "Z": "2", "S": "5", "V": "U"}


def _check_credit_alphabet(text: str) -> None:
    bad = [(i + 1, c) for i, c in enumerate(text) if c not in _CREDIT_VALUE]
    if not bad:
        return
    listed = ", ".join(f"{c!r} at position {pos}" for pos, c in bad)
    listed_zh = "，".join(f"第{pos}位“{c}”" for pos, c in bad)
    hints = sorted({f"{c}→{_CONFUSABLE[c]}" for _, c in bad if c in _CONFUSABLE})
    hint = f" (possibly mistyped: {', '.join(hints)})" if hints else ""
    hint_zh = f"（可能是录入错误：{'，'.join(hints)}）" if hints else ""
    raise _fail(
        "credit_code_characters",
        f"The credit code contains characters that a unified social credit code never uses: "
        f"{listed}{hint}. Only digits and capital letters except I, O, Z, S and V are allowed; "
        f"copy the code again from the vendor's business licence (营业执照).",
        f"统一社会信用代码含有不允许的字符：{listed_zh}{hint_zh}。代码只由数字和除 I、O、Z、S、V "
        f"以外的大写字母组成，请对照供应商营业执照重新录入。",
    )


def credit_code_check_char(first17: str) -> str:
    """The 18th (check) character for the first 17 characters of a credit code."""
    body = fold_credential(first17)
    if len(body) != 17:
        raise _fail(
            "credit_code_length",
            f"A check character is computed from exactly 17 characters; got {len(body)}.",
            f"校验码须由前 17 位计算，当前为 {len(body)} 位。",
        )
    _check_credit_alphabet(body)
    total = sum(_CREDIT_VALUE[c] * w for c, w in zip(body, _CREDIT_WEIGHTS, strict=True))
    return CREDIT_CODE_ALPHABET[-total % 31]


def _credit_length_error(text: str) -> CredentialFormatError:
    if not text:
        return _fail(
            "credit_code_empty",
            "No credit code was entered. Ask the vendor for the 18-character unified social "
            "credit code printed on its business licence (营业执照).",
            "未填写统一社会信用代码。请向供应商索取营业执照上的 18 位统一社会信用代码。",
        )
    if len(text) == 15 and text.isdigit():
        return _fail(
            "credit_code_length",
            "This is 15 digits: an old business registration number (注册号) from before 2015, "
            "not a unified social credit code. Ask for the 18-character code on the current "
            "business licence.",
            "该号码为 15 位数字，是 2015 年前的工商注册号，不是统一社会信用代码。请索取现行营业"
            "执照上的 18 位代码。",
        )
    return _fail(
        "credit_code_length",
        f"A unified social credit code has 18 characters; this one has {len(text)}. "
        f"Check it against the vendor's business licence.",
        f"统一社会信用代码应为 18 位，当前为 {len(text)} 位。请对照供应商营业执照核对。",
    )


def normalize_credit_code(text: str) -> str:
    """Return the credit code in canonical form (trimmed, upper case) or raise."""
    code = unicodedata.normalize("NFKC", text).strip().upper()
    if len(code) != 18:
        raise _credit_length_error(code)
    _check_credit_alphabet(code)
    expected = credit_code_check_char(code[:17])
    if code[17] != expected:
        raise _fail(
            "credit_code_check",
            f"The last character of credit code {code} should be {expected!r} but is "
            f"{code[17]!r}: the code is mistyped or invented. Check it on the National "
            f"Enterprise Credit Information Publicity System (国家企业信用信息公示系统).",
            f"统一社会信用代码 {code} 的校验位应为“{expected}”，实际为“{code[17]}”，"
            f"代码有误或系编造。请在国家企业信用信息公示系统中核实。",
        )
    return code


def credit_code_division(code: str) -> str:
    """The six-digit administrative division (registration authority's area) of a valid code."""
    return normalize_credit_code(code)[2:8]
