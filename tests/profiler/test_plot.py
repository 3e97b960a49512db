"""asnumpy.profiler's picture: the PNG, the lanes, an empty profile, matplotlib missing."""

import re
import sys

import pytest

import asnumpy as ap
from asnumpy import profiler
from asnumpy._lazy import OPTIONAL_EXTRAS
from asnumpy.profiler._plot import plot


@pytest.fixture(scope="module")
def matplotlib():
    return pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def prof(matplotlib):
    with profiler.profile() as prof:
        a = ap.ones(1 << 18)
        b = a * 2
        stream = ap.Stream()
        with stream:
            with profiler.time_range("on the stream"):
                c = a + b
        stream.synchronize()
        del a, b, c
    return prof


def lane_labels(figure):
    timeline = figure.axes[0]
    return [label.get_text() for label in timeline.get_yticklabels()]


def test_a_png_is_written_and_reads_back(prof, tmp_path, matplotlib):
    import matplotlib.image

    path = tmp_path / "timeline.png"
    assert prof.plot(path, width=8, dpi=50) == str(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = matplotlib.image.imread(path)
    assert pixels.shape[1] == 8 * 50 and pixels.shape[2] in (3, 4)


def test_one_lane_per_device_and_stream(prof):
    figure = prof.plot()
    labels = lane_labels(figure)
    streams = list(dict.fromkeys((r.device, r.stream) for r in prof.records()))
    lanes = [label for label in labels if not label.startswith("ranges")]
    assert lanes == [f"{device} {stream}" for device, stream in streams]
    assert len(lanes) == 2
    assert labels[len(lanes):] == ["ranges main"]
    assert f"{len(prof.records())} ops" in figure.texts[0].get_text()
    memory = figure.axes[1]
    assert memory.get_lines()                     # used, cached, the peak


def test_plot_leaves_pyplot_alone(prof):
    before = sys.modules.get("matplotlib.pyplot")
    prof.plot()
    assert sys.modules.get("matplotlib.pyplot") is before


def test_an_empty_profile_draws(matplotlib, tmp_path):
    with profiler.profile(memory=False) as prof:
        pass
    figure = prof.plot()
    assert lane_labels(figure) == []
    assert prof.plot(tmp_path / "empty.png").endswith("empty.png")


@pytest.mark.parametrize("options", [{"width": 0}, {"dpi": -1}, {"width": "wide"}])
def test_bad_options_are_refused(prof, options):
    with pytest.raises(ValueError, match=r"asnumpy\.profiler\.plot"):
        prof.plot(**options)


def test_missing_matplotlib_names_the_extra(monkeypatch):
    with profiler.profile(memory=False) as prof:
        pass
    extra = re.escape(f'asnumpy[{OPTIONAL_EXTRAS["matplotlib"]}]')
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ModuleNotFoundError, match=extra) as raised:
        plot(prof.result)
    assert "plot()" in str(raised.value)


def test_a_failed_op_is_drawn_at_its_host_time(prof):
    with profiler.profile(memory=False) as failing:
        ap.arange(10)
    record = failing.records()[0]
    failing.result._records = [record._replace(device_start=None, device_time=None,
                                               failed=True)]   # what a failed launch records
    figure = failing.plot()
    bars = figure.axes[0].collections
    assert len(bars) == 1 and bars[0].get_hatch() == "//"
    legend = figure.axes[0].get_legend()
    assert [text.get_text() for text in legend.get_texts()] == [record.kind]
