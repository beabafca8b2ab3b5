"""A world's short repr: what a lesson shows, and what Hypothesis prints."""

from __future__ import annotations

from dataclasses import replace

from _written_worlds import EXAMPLE_WORLDS
from hypothesis.vendor.pretty import pretty

from strategies.draw import PASSING_WORLD
from strategies.world import blueprint


def test_hypothesis_prints_a_world_as_its_short_repr() -> None:
    """Hypothesis pretty-prints each explicit example before running it; a
    world prints as its short repr (valid Python, defaults left out), not
    field by field, which took 16 ms and 230 KB for the biggest written world."""
    world = EXAMPLE_WORLDS["everything at once"]
    assert pretty(world) == repr(world)
    assert len(repr(world)) < 20_000


def test_a_world_works_its_blueprint_out_whenever_it_is_made() -> None:
    """A world's blueprint (what the judge builds of it) is worked out from
    its facts whenever the world is made, a `replace` too, and is neither
    shown in its repr nor part of its equality: a lesson's snippet rebuilds
    the world from its facts alone, and the blueprint comes with it."""
    for world in EXAMPLE_WORLDS.values():
        assert world.blueprint == blueprint(world)
        assert "blueprint" not in repr(world)
    marker = PASSING_WORLD.final.marker
    other = replace(PASSING_WORLD, final=replace(PASSING_WORLD.final, marker="[Z]"))
    assert other.blueprint == blueprint(other)
    assert other.blueprint.final == PASSING_WORLD.blueprint.final.replace(marker, "[Z]")
    assert other.blueprint.case.final_contains == "[Z]"
