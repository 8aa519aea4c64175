"""The one money rule: what an offer bills per month and per hour, in CNY, on the team's tax basis.

Every page, the ranking, serving and the reports take an offer's bill from here (docs/MODEL.md,
"Money rule"); `quotes.filters.with_monthly_rent` writes the same rule in SQL so that the quote list
can sort in the database, and a test holds the two equal to the cent.

The bill of one month, in the quote's own currency:

    rent              billed nodes x price per node and month
    other             other monthly fees
    storage           TB x price per TB and month
    setup_amortised   set-up fee / term months
    public_bandwidth  Mbit/s x price per Mbit/s (0 when billed per GB: it depends on traffic)

`comparable` is that sum converted to CNY (`fx_rate`) and brought to the team's tax basis
(`tax_factor`), rounded to the cent once, at the end.

Tax basis. Chinese quotes mix prices with VAT (含税) and without (不含税),
at 0, 6, 9 or 13 %, and input VAT is deductible only with a special VAT invoice (增值税专用发票,
专票). On the default basis, *excluding VAT*, an offer costs what the team pays minus the VAT
it gets back:

    price includes VAT, 专票           price / (1 + rate)
    price includes VAT, 普票 or none   price               (the VAT is a real cost)
    price excludes VAT, 专票           price
    price excludes VAT, 普票 or none   price x (1 + rate)

On the *including VAT* basis every offer costs what is paid: inclusive prices as they are, exclusive
ones x (1 + rate). A version that does not state its rate (rows from before the tax fields) is taken
as entered; `Bill.tax_assumed` says so and pages show it.

Pure Python; the arithmetic helpers take floats, Decimals or numpy arrays alike (the cost model
evaluates 10,000 offers at once with the same `monthly_total`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from domain.messages import Message

HOURS_PER_MONTH = 730
CENT = Decimal("0.01")
VAT_RATES = (0, 6, 9, 13)  # percent; the rates of Chinese VAT that apply to rented compute

INVOICE_SPECIAL = "special"  # 增值税专用发票 (专票): input VAT deductible
INVOICE_ORDINARY = "ordinary"  # 增值税普通发票 (普票): not deductible
INVOICE_NONE = "none"
INVOICE_TYPES = (INVOICE_SPECIAL, INVOICE_ORDINARY, INVOICE_NONE)

BASIS_EXCLUDING_VAT = "excl_vat"
BASIS_INCLUDING_VAT = "incl_vat"
TAX_BASES = (BASIS_EXCLUDING_VAT, BASIS_INCLUDING_VAT)
DEFAULT_TAX_BASIS = BASIS_EXCLUDING_VAT

BANDWIDTH_PER_GB = "per_gb"


class MoneyError(ValueError):
    """Terms that cannot be billed (a foreign currency without a rate, an unknown basis)."""

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(message.en)


# ---------------------------------------------------------------------------------------------
# Arithmetic shared with the vectorised cost model


def monthly_total(
    billed_nodes: Any, price_per_node_month: Any, monthly_fees: Any, rate: Any = 1
) -> Any:
    """Billed nodes x price + fees, times `rate` (currency x tax factor); any number type."""
    return (billed_nodes * price_per_node_month + monthly_fees) * rate


def hourly(monthly: Any) -> Any:
    """A monthly amount per hour (730 hours a month, COST-MODEL.md)."""
    return monthly / HOURS_PER_MONTH


# ---------------------------------------------------------------------------------------------
# Currency


def fx_rate(currency: str, fx_to_cny: Any = None) -> Decimal:
    """CNY per unit of `currency`: 1 for CNY, else the given rate (MoneyError when missing)."""
    code = (currency or "CNY").upper()
    if code == "CNY":
        return Decimal(1)
    rate = None if fx_to_cny is None else Decimal(str(fx_to_cny))
    if rate is None or not rate.is_finite() or rate <= 0:
        raise MoneyError(
            Message(
                "money_no_fx_rate",
                f"Amounts in {code} need a rate to CNY above 0 before they can be compared.",
                f"以 {code} 计价的金额需要大于 0 的人民币汇率才能比较。",
            )
        )
    return rate


def rate_from(currency: str, rates: Any) -> Decimal | None:
    """The rate of `currency` in a {currency: rate} mapping; None when it has no usable one."""
    try:
        return fx_rate(currency, (rates or {}).get((currency or "CNY").upper()))
    except MoneyError:
        return None


def to_cny(amount: Any, currency: str, fx_to_cny: Any = None) -> Any:
    """`amount` of `currency` in CNY, as the type it came in (float stays float)."""
    rate = fx_rate(currency, fx_to_cny)
    return amount * (float(rate) if isinstance(amount, float) else rate)


# ---------------------------------------------------------------------------------------------
# Tax basis


@dataclass(frozen=True, slots=True)
class TaxTerms:
    """A quote's VAT terms; None / "" where the quote does not say."""

    prices_include_vat: bool | None = None
    vat_rate: Decimal | None = None  # percent: 0, 6, 9 or 13
    invoice_type: str = ""


def tax_problems(t: TaxTerms) -> list[tuple[str, Message]]:
    """(field, message) for VAT terms that cannot be brought to a basis."""
    out: list[tuple[str, Message]] = []
    if t.invoice_type not in ("", *INVOICE_TYPES):
        out.append(("invoice_type", Message(
            "money_invoice_unknown",
            f"Unknown invoice type {t.invoice_type!r}: use special (专票), ordinary (普票) "
            "or none.",
            f"无法识别的发票类型 {t.invoice_type!r}：请填写 special（专票）、ordinary（普票）"
            "或 none（不开票）。",
        )))  # fmt: skip
    if t.vat_rate is not None and Decimal(t.vat_rate) not in [Decimal(r) for r in VAT_RATES]:
        out.append(("vat_rate", Message(
            "money_vat_rate_unknown",
            f"The VAT rate must be one of 0, 6, 9 or 13 (percent); got {t.vat_rate}.",
            f"增值税税率只能为 0、6、9 或 13（%），当前为 {t.vat_rate}。",
        )))  # fmt: skip
    if t.vat_rate is not None and t.prices_include_vat is None:
        out.append(("prices_include_vat", Message(
            "money_rate_without_basis",
            "A VAT rate is given but not whether the prices include VAT: say which.",
            "填写了税率，但未说明价格是否含税：请选择含税或不含税。",
        )))  # fmt: skip
    if t.prices_include_vat is True and t.vat_rate is None:
        out.append(("vat_rate", Message(
            "money_inclusive_without_rate",
            "Prices that include VAT need the VAT rate (0, 6, 9 or 13 %) to be compared.",
            "含税价格需要填写增值税税率（0、6、9 或 13%）才能比较。",
        )))  # fmt: skip
    return out


def tax_factor(t: TaxTerms, basis: str = DEFAULT_TAX_BASIS) -> tuple[Decimal, Decimal, bool]:
    """(multiply, divide, assumed): the price on `basis` is price x multiply / divide; `assumed`
    when the quote does not state its VAT terms and the price is taken as entered."""
    if basis not in TAX_BASES:
        raise MoneyError(
            Message(
                "money_basis_unknown",
                f"Unknown tax basis {basis!r}.",
                f"无法识别的计税口径 {basis!r}。",
            )
        )
    if t.vat_rate is None or t.prices_include_vat is None or tax_problems(t):
        return Decimal(1), Decimal(1), True
    gross_up = 1 + Decimal(t.vat_rate) / 100
    deductible = basis == BASIS_EXCLUDING_VAT and t.invoice_type == INVOICE_SPECIAL
    if t.prices_include_vat:
        return (Decimal(1), gross_up, False) if deductible else (Decimal(1), Decimal(1), False)
    return (Decimal(1), Decimal(1), False) if deductible else (gross_up, Decimal(1), False)


def basis_label(basis: str = DEFAULT_TAX_BASIS) -> Message:
    """What every comparison says about its money."""
    if basis == BASIS_INCLUDING_VAT:
        return Message(
            "money_basis_incl_vat",
            "Prices compared including VAT (what is paid), in CNY.",
            "价格按含税口径（实际支付金额）以人民币比较。",
        )
    return Message(
        "money_basis_excl_vat",
        "Prices compared excluding VAT (input VAT deductible only with a special VAT invoice), "
        "in CNY.",
        "价格按不含税口径以人民币比较（仅取得增值税专用发票时进项税可抵扣）。",
    )


TAX_ASSUMED = Message(
    "money_tax_assumed",
    "VAT terms not recorded: the price is compared as entered.",
    "未记录含税信息：价格按录入金额比较。",
)


# ---------------------------------------------------------------------------------------------
# The bill


@dataclass(frozen=True, slots=True, kw_only=True)
class Terms:
    """The money terms of a quote version (any object with these attributes will do)."""

    nodes: int
    price_per_node_month: Decimal
    currency: str = "CNY"
    fx_to_cny: Decimal | None = None
    monthly_fees: Decimal = Decimal(0)
    storage_tb: Decimal = Decimal(0)
    storage_price_tb_month: Decimal = Decimal(0)
    setup_fee: Decimal = Decimal(0)
    term_months: int = 12
    public_bandwidth_mbps: int = 0
    bandwidth_billing: str = "fixed"
    bandwidth_price: Decimal = Decimal(0)
    prices_include_vat: bool | None = None
    vat_rate: Decimal | None = None
    invoice_type: str = ""


def _dec(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value or 0))


@dataclass(frozen=True, slots=True)
class Bill:
    """One month of an offer: the parts in the quote's currency, its rate and tax factor."""

    currency: str
    billed_nodes: int
    price_per_node_month: Decimal
    rent: Decimal
    other: Decimal
    storage: Decimal
    setup_amortised: Decimal
    public_bandwidth: Decimal
    fx_to_cny: Decimal | None  # None: a foreign currency without a rate (`comparable` refuses)
    tax_multiply: Decimal
    tax_divide: Decimal
    tax_assumed: bool
    basis: str
    term_months: int
    setup_fee: Decimal

    @property
    def fees(self) -> Decimal:
        """Every monthly charge but the rent, in the quote's currency, to the cent."""
        parts = self.other + self.storage + self.setup_amortised + self.public_bandwidth
        return parts.quantize(CENT, ROUND_HALF_UP)

    @property
    def fees_parts(self) -> dict[str, Decimal]:
        return {
            "other": self.other,
            "storage": self.storage,
            "setup_amortised": self.setup_amortised,
            "public_bandwidth": self.public_bandwidth,
        }

    @property
    def monthly(self) -> Decimal:
        """What the vendor invoices per month, in the quote's currency (rent plus fees)."""
        return self.rent + self.fees

    def _fx(self) -> Decimal:
        return fx_rate(self.currency, self.fx_to_cny)

    @property
    def comparable(self) -> Decimal:
        """The month in CNY on the tax basis, to the cent: the figure every comparison uses.

        One division, one rounding: ((rent + fees without set-up) x term + set-up) x fx x
        multiply / (term x divide), so that SQL and Python agree to the cent."""
        monthly = self.rent + self.other + self.storage + self.public_bandwidth
        top = (monthly * self.term_months + self.setup_fee) * self._fx() * self.tax_multiply
        return (top / (self.term_months * self.tax_divide)).quantize(CENT, ROUND_HALF_UP)

    @property
    def hourly_comparable(self) -> float:
        return float(hourly(self.comparable))

    def per_node(self) -> Decimal:
        """The price per node and month on the basis in the quote's currency (for the model)."""
        return self.price_per_node_month * self.tax_multiply / self.tax_divide

    def fees_on_basis(self) -> Decimal:
        """The monthly fees on the basis in the quote's currency (for the model)."""
        return self.fees * self.tax_multiply / self.tax_divide


def monthly_bill(
    terms: Any, *, basis: str = DEFAULT_TAX_BASIS, billed_nodes: int | None = None
) -> Bill:
    """The bill of `terms` (a `Terms` or a quote version) for `billed_nodes` (default: all)."""
    term = max(1, int(terms.term_months or 1))
    nodes = int(terms.nodes if billed_nodes is None else billed_nodes)
    price = _dec(terms.price_per_node_month)
    if terms.bandwidth_billing == BANDWIDTH_PER_GB:
        bandwidth = Decimal(0)  # depends on traffic: entered in the other fees if known
    else:
        bandwidth = Decimal(int(terms.public_bandwidth_mbps or 0)) * _dec(terms.bandwidth_price)
    tax = TaxTerms(
        getattr(terms, "prices_include_vat", None),
        None if getattr(terms, "vat_rate", None) is None else _dec(terms.vat_rate),
        getattr(terms, "invoice_type", "") or "",
    )
    multiply, divide, assumed = tax_factor(tax, basis)
    setup = _dec(terms.setup_fee)
    return Bill(
        currency=(terms.currency or "CNY").upper(),
        billed_nodes=nodes,
        price_per_node_month=price,
        rent=monthly_total(nodes, price, Decimal(0)),
        other=_dec(terms.monthly_fees),
        storage=_dec(terms.storage_tb) * _dec(terms.storage_price_tb_month),
        setup_amortised=setup / term,
        public_bandwidth=bandwidth,
        fx_to_cny=rate_from(terms.currency, {(terms.currency or "CNY").upper(): terms.fx_to_cny}),
        tax_multiply=multiply,
        tax_divide=divide,
        tax_assumed=assumed,
        basis=basis,
        term_months=term,
        setup_fee=setup,
    )
