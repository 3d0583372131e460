"""wording.messages reads each text's translation and each vocabulary label once per language:
what it writes is what Django's gettext and the labels give, in every language the site speaks,
whichever language asked first."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.conf import settings
from django.utils import translation

from advisor.engine import vocab
from advisor.engine.messages import TEMPLATES, Code, Message, Money, Quantity, Unit, msg
from wording import choices, messages

LANGUAGES = [code for code, _name in settings.LANGUAGES]


@pytest.mark.parametrize("first", LANGUAGES)
def test_every_template_reads_as_djangos_gettext_in_each_language(first: str) -> None:
    messages._TRANSLATED.clear()
    for language in [first, *(code for code in LANGUAGES if code != first)] * 2:
        with translation.override(language):
            for template in TEMPLATES.values():
                assert messages.gettext(template) == translation.gettext(template)


def test_the_templates_are_translated_in_chinese() -> None:
    """Not only read back: the Chinese catalogue answers (compile_translations has run)."""
    template = TEMPLATES[next(iter(TEMPLATES))]
    with translation.override("zh-hans"):
        assert messages.gettext(template) != template


@pytest.mark.parametrize("language", LANGUAGES)
def test_members_of_two_enums_with_one_value_keep_their_own_labels(language: str) -> None:
    """BillingUnit.DAY and When.DAY are equal strings; each reads as its own enum's label."""
    messages._LABELS.clear()
    pairs = [
        (vocab.BillingUnit.DAY, vocab.When.DAY),
        (vocab.BillingUnit.MONTH, vocab.CostBasis.MONTH),
        (vocab.MultiTask.MIG, vocab.PlacementMode.MIG),
        (vocab.PlacementMode.POOLED, vocab.SharingMode.POOLED),
    ]
    with translation.override(language):
        for a, b in pairs:
            for member in (a, b, a, b):
                expected = (
                    str(choices.UNIT_NOUNS[member])
                    if isinstance(member, vocab.BillingUnit)
                    else choices.label(member)
                )
                assert messages.enum_label(member) == expected
        # A price per day names the unit as BillingUnit's noun, after When.DAY was asked.
        per_day = messages.money(Money(Decimal("1.5"), "CNY", per="day"))
        assert str(choices.UNIT_NOUNS[vocab.BillingUnit.DAY]) in per_day


def _sample() -> Message:
    """A message with a nested message, money, a size and a vocabulary label: every table the
    language selects (templates, labels, separators)."""
    inner = msg(Code.WARN_TASK, task="train", message=msg(Code.CAPACITY_GPU, accelerator="A100"))
    return msg(
        Code.PLAN_MIXED_WINS,
        platforms=("AutoDL", "Lambda"),
        cost=Money(Decimal("12345.5"), "CNY", vocab.BillingUnit.MONTH),
        saving=Money(Decimal("1234.25"), "CNY", vocab.BillingUnit.MONTH),
        fraction=Quantity(0.125, Unit.FRACTION, 1),
        single=inner,
        single_cost=Money(Decimal("0.000164"), "USD", vocab.BillingUnit.SECOND),
        why=msg(Code.CAPACITY_GPU, accelerator="H100"),
    )


def test_one_language_renders_in_the_language_active_on_entry() -> None:
    """Within one_language the language is read once: a whole answer in the language it began in,
    as each message rendered alone in that language reads; outside, each call follows the active
    language again (the pin does not outlive its block, nor an error inside it)."""
    message = _sample()
    with translation.override("zh-hans"):
        chinese = messages.render(message)
        chinese_json = messages.as_json(message)
    with translation.override("en"):
        english = messages.render(message)
    assert chinese != english
    with translation.override("zh-hans"), messages.one_language():
        assert messages.render(message) == chinese
        assert messages.as_json(message) == chinese_json
        with messages.one_language():  # nested: the outer language stays
            assert messages.render(message) == chinese
    with translation.override("en"):
        assert messages.render(message) == english
        with pytest.raises(RuntimeError), messages.one_language():
            raise RuntimeError
        with translation.override("zh-hans"):
            assert messages.render(message) == chinese
            assert messages.number(1234.5, 2) == messages.number(1234.5, 2)
        assert messages.render(message) == english


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_answer_serialized_in_one_language_reads_as_each_message_alone(language: str) -> None:
    """The advice's serializer pins the language (AdviceReportSerializer.to_representation):
    each message in its JSON is the message as_json gives outside the pin."""
    from api.advice import MessageSerializer

    message = _sample()
    with translation.override(language):
        alone = messages.as_json(message)
        with messages.one_language():
            serialized = MessageSerializer(message).data
    assert serialized == alone


def test_a_port_warning_reads_in_chinese_with_its_nested_limits() -> None:
    """A software-stack warning (advisor/engine/stacks.py) nests the need and each limit it
    leaves unverified: all of them are rendered in the reader's language, names kept."""
    from advisor.engine import stacks
    from advisor.engine.hardware import load_accelerators
    from advisor.engine.scenario import parse_scenario

    tasks = parse_scenario({"tasks": [{"kind": "qlora", "model": "qwen2.5-7b"}]}).tasks
    ascend = load_accelerators()["ascend-910b-64gb"]
    said = stacks.warnings(stacks.DEFAULT_TABLE, stacks.needs_of(tasks), ascend)
    port = next(w for w in said if w.params["port"] == "torch_npu")
    with translation.override("zh-hans"):
        chinese = messages.render(port)
    assert "只能通过 torch_npu 运行" in chinese and "厂商镜像" in chinese
    assert "Ascend 910B" in chinese and "CANN" in chinese
