"""The report charts' drawings (domain.svgcharts): axes cover the data, labels fit, SVG is valid."""

from xml.etree import ElementTree

from domain import svgcharts as svg


def test_ticks_are_round_and_cover_the_range():
    assert svg.nice_ticks(0, 37.8) == [0, 10, 20, 30, 40]
    assert svg.nice_ticks(-48.3, 48.3, 6)[0] <= -48.3 and svg.nice_ticks(-48.3, 48.3, 6)[-1] >= 48.3
    assert svg.nice_ticks(0, 0) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]


def test_long_names_are_cut_to_the_label_column():
    name = "基准供应商" * 40
    cut = svg.clip(name, 200, 11)
    assert cut.endswith("…") and svg.text_width(cut, 11) <= 200
    assert svg.clip("short", 200, 11) == "short"


def _texts(chart: svg.Chart) -> list[str]:
    return [item[3] for item in chart.items if item[0] == "text"]


def test_bars_stay_inside_the_drawing_and_svg_parses():
    chart = svg.stacked_bars(
        ["#1 A", "#2 " + "B" * 300],
        [svg.Series("compute", "#00f", [10.0, 12.5]), svg.Series("exposed", "#f00", [1.0, 30.0])],
        title="Cost", axis="cost per ETH",
    )  # fmt: skip
    for kind, *a in chart.items:
        if kind == "rect":
            x, y, w, h, _fill = a
            assert x >= 0 and x + w <= chart.width + 0.01 and y + h <= chart.height
    assert any(t.endswith("…") for t in _texts(chart))
    root = ElementTree.fromstring(chart.svg())  # noqa: S314 - our own drawing
    assert root.tag.endswith("svg") and len(root) == len(chart.items)


def test_scatter_axis_reaches_the_highest_error_bar():
    points = [svg.Point(x=22.5, y=15.4, low=14.8, high=35.2, text="#2 25G"),
              svg.Point(x=190, y=15.4, low=15.1, high=15.7, text="#3 200G",
                        hollow=True)]  # fmt: skip
    chart = svg.log_scatter(
        points, title="t", x_axis="x", y_axis="y", legend=[("m", "#00f"), ("n", "#00f")]
    )
    lines = [a for kind, *a in chart.items if kind == "line"]
    assert min(min(a[1], a[3]) for a in lines) >= 50  # nothing drawn over the title and legend
    assert "40" in _texts(chart) and "#3 200G" in _texts(chart)


def test_tornado_bars_fit_their_axis():
    rows = [svg.TornadoRow("overlap", "★ #1", 12.9, 0.0, "+12.9%", "±0%"),
            svg.TornadoRow("overlap", "#2", 48.3, -1.7, "+48.3%", "-1.7% → #1")]  # fmt: skip
    chart = svg.tornado(rows, title="t", axis="%", legend=[("low", "#0f0"), ("high", "#fa0")])
    for kind, *a in chart.items:
        if kind == "rect" and a[3] < 15:  # bars, not the legend swatches
            assert a[0] >= 0 and a[0] + a[2] <= chart.width - 50
    assert _texts(chart).count("overlap") == 1
