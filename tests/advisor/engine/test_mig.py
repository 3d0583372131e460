"""MIG layout rules and task packing (NVIDIA MIG User Guide; docs/accelerators.md)."""

from __future__ import annotations

import pytest

from advisor.engine.errors import InvalidWorkload
from advisor.engine.hardware import load_accelerators
from advisor.engine.messages import Code, msg
from advisor.engine.mig import find_layout, pack_tasks, profile
from advisor.engine.types import AcceleratorSpec, GiB

# The project's accelerator table (fixtures/accelerators.json), so these tests check its MIG rows
# against the MIG User Guide's profiles and placement rule as well as the search.
ACCELERATORS = load_accelerators()
A100_40 = ACCELERATORS["a100-40gb"]
A100_80 = ACCELERATORS["a100-80gb"]


@pytest.mark.parametrize(
    ("profiles", "valid"),
    [
        (["4g.20gb", "2g.10gb", "1g.5gb"], True),
        (["4g.20gb", "4g.20gb"], False),
        (["3g.20gb", "3g.20gb", "1g.5gb"], False),
        (["4g.20gb", "3g.20gb"], True),
        (["3g.20gb", "3g.20gb"], True),
        (["1g.5gb"] * 7, True),
        (["1g.5gb"] * 8, False),
        (["2g.10gb", "2g.10gb", "3g.20gb"], True),
        (["7g.40gb"], True),
        (["7g.40gb", "1g.5gb"], False),
        (["1g.5gb+me", "1g.5gb+me"], False),
        (["1g.10gb"] * 4, True),
        (["2g.10gb"] * 3 + ["1g.5gb"], True),
    ],
)
def test_a100_40gb_layouts_follow_the_placement_rule(profiles: list[str], valid: bool) -> None:
    """The placement rule of `nvidia-smi mig -lgipp` on an A100-40GB (docs/accelerators.md)."""
    assert (find_layout(A100_40, profiles) is not None) is valid


def test_4g_with_3g_is_invalid_before_driver_r510() -> None:
    """NVIDIA MIG User Guide, "Concepts": before driver R510 a (4 memory, 4 compute) and a
    (4 memory, 3 compute) profile could not be combined; newer drivers allow it."""
    assert find_layout(A100_40, ["4g.20gb", "3g.20gb"]) is not None
    assert find_layout(A100_40, ["4g.20gb", "3g.20gb"], pre_r510=True) is None
    assert find_layout(A100_40, ["3g.20gb", "3g.20gb"], pre_r510=True) is not None


def test_find_layout_gives_the_documented_slots() -> None:
    """4g.20gb + 2g.10gb + 1g.5gb on slots 0–3, 4–5, 6 (start slots of `nvidia-smi mig -lgipp`)."""
    assert find_layout(A100_40, ["1g.5gb", "4g.20gb", "2g.10gb"]) == (
        ("1g.5gb", 6),
        ("4g.20gb", 0),
        ("2g.10gb", 4),
    )


def test_find_layout_respects_slices_that_must_stay_put() -> None:
    """A running 3g at slot 0 leaves only the upper half; 4g.20gb starts only at 0
    (`nvidia-smi mig -lgipp`)."""
    assert find_layout(A100_40, ["3g.20gb"], fixed=(("3g.20gb", 0),)) == (("3g.20gb", 4),)
    assert find_layout(A100_40, ["4g.20gb"], fixed=(("3g.20gb", 0),)) is None
    assert find_layout(A100_40, ["1g.5gb"], fixed=(("3g.20gb", 1),)) is None  # 1 is no 3g start


def test_an_unknown_profile_names_the_card_and_its_profiles() -> None:
    with pytest.raises(InvalidWorkload) as caught:
        find_layout(A100_40, ["3g.40gb"])
    detail = caught.value.detail
    assert detail.code is Code.NO_MIG_PROFILE
    assert (detail.params["accelerator"], detail.params["profile"]) == (A100_40.name, "3g.40gb")
    assert detail.params["profiles"] == tuple(p.name for p in A100_40.mig_profiles)
    assert caught.value.message.startswith(f"{A100_40.name} has no MIG profile '3g.40gb'; it has ")


def test_a_card_without_mig_says_so() -> None:
    l40s = load_accelerators()["l40s-48gb"]
    with pytest.raises(InvalidWorkload) as caught:
        profile(l40s, "1g.10gb")
    assert caught.value.detail == msg(Code.NO_MIG, accelerator="L40S")
    assert caught.value.message == "L40S does not support MIG"


def test_five_small_concurrent_tasks_pack_onto_one_a100_80gb() -> None:
    """Five tasks (3 × 8 GiB notebooks/inference, 2 × 18 GiB) on one A100-80GB (MIG User Guide)."""
    needs = [8 * GiB, 18 * GiB, 8 * GiB, 18 * GiB, 8 * GiB]
    packed = pack_tasks(A100_80, needs)
    assert packed is not None
    assert [s.profile for s in packed] == ["1g.10gb", "1g.20gb", "1g.10gb", "1g.20gb", "1g.10gb"]
    assert find_layout(A100_80, [s.profile for s in packed]) is not None
    assert all(s.usable_bytes >= s.need_bytes for s in packed)
    assert [s.need_bytes for s in packed] == needs


def test_packing_backtracks_over_start_slots() -> None:
    """Three 1g.20gb at 0, 2, 4 leave only slot 6 for two 1g.10gb; one 1g.20gb must move to 6."""
    packed = pack_tasks(A100_80, [18 * GiB, 18 * GiB, 18 * GiB, 8 * GiB, 8 * GiB])
    assert packed is not None
    used = sorted(s for slot in packed for s in range(slot.start, slot.start + slot.memory_slices))
    assert len(used) == len(set(used)) == 8


def test_packing_upgrades_a_profile_when_the_smallest_ones_run_out() -> None:
    """1g.10gb on A100-40GB has max count 4 (MIG User Guide): a fifth 8 GiB task needs 2g.10gb."""
    packed = pack_tasks(A100_40, [8 * GiB] * 5)
    assert packed is None  # 5 × 2 memory slots > 8
    packed = pack_tasks(A100_40, [8 * GiB] * 3 + [4 * GiB])
    assert packed is not None
    assert sorted(s.profile for s in packed) == ["1g.10gb", "1g.10gb", "1g.10gb", "1g.5gb"]


def test_packing_fails_when_a_need_exceeds_every_slice() -> None:
    """A 41 GiB need cannot fit any slice of an A100-40GB; 7g.40gb is the whole card."""
    assert pack_tasks(A100_40, [41 * GiB]) is None
    assert pack_tasks(A100_40, [30 * GiB])[0].profile == "7g.40gb"  # type: ignore[index]


def test_packing_keeps_fixed_slices() -> None:
    """Slices of tasks that keep running stay where they are; new ones go around them."""
    packed = pack_tasks(A100_80, [30 * GiB], fixed=(("3g.40gb", 0),))
    assert packed is not None and (packed[0].profile, packed[0].start) == ("3g.40gb", 4)
    assert pack_tasks(A100_80, [30 * GiB, 5 * GiB], fixed=(("3g.40gb", 0),)) is None


def test_cards_without_mig_pack_nothing() -> None:
    plain = AcceleratorSpec("rtx-4090-24gb", "RTX 4090", "NVIDIA", 24, 1008, 165.2)
    assert pack_tasks(plain, [GiB]) is None
