"""The axag macro (the axag macro)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axag.model.macro import expand


def test_full_expansion() -> None:
    v = "write:cart.add_item!low?confirm&approval=false&idempotent=true&async&scope=user&tenant=strict" \
        "&roles=admin,ops&effects=email_sent,stock-reserved&req=product_id,qty&opt=note"
    r = expand(v)
    assert r.errors == [] and not r.intent_error and not r.stopped
    assert r.attrs == {
        "axag-action-type": "write",
        "axag-intent": "cart.add_item",
        "axag-risk-level": "low",
        "axag-confirmation-required": "true",
        "axag-approval-required": "false",
        "axag-idempotent": "true",
        "axag-async": "true",
        "axag-scope": "user",
        "axag-tenant-boundary": "strict",
        "axag-approval-roles": '["admin","ops"]',
        "axag-side-effects": '["email_sent","stock-reserved"]',
        "axag-required-parameters": '["product_id","qty"]',
        "axag-optional-parameters": '["note"]',
    }
    assert list(r.attrs) == list(r.parts)
    got = {a: v[s:e] for a, (s, e) in r.parts.items()}
    assert got == {
        "axag-action-type": "write",
        "axag-intent": "cart.add_item",
        "axag-risk-level": "low",
        "axag-confirmation-required": "confirm",
        "axag-approval-required": "false",
        "axag-idempotent": "true",
        "axag-async": "async",
        "axag-scope": "user",
        "axag-tenant-boundary": "strict",
        "axag-approval-roles": "admin,ops",
        "axag-side-effects": "email_sent,stock-reserved",
        "axag-required-parameters": "product_id,qty",
        "axag-optional-parameters": "note",
    }


@pytest.mark.parametrize(
    ("value", "attrs"),
    [
        ("read:product.view", {"axag-action-type": "read", "axag-intent": "product.view"}),
        ("navigate:page.open_v2!none", {"axag-action-type": "navigate", "axag-intent": "page.open_v2",
                                        "axag-risk-level": "none"}),
        ("delete:a.b?effects=a,a", {"axag-action-type": "delete", "axag-intent": "a.b",
                                    "axag-side-effects": '["a","a"]'}),
    ],
)
def test_simple(value: str, attrs: dict[str, str]) -> None:
    r = expand(value)
    assert r.errors == [] and r.attrs == attrs


@pytest.mark.parametrize(
    ("value", "errors", "intent_error"),
    [
        ("", [(1, "empty macro")], False),
        (" \t\n", [(1, "empty macro")], False),
        ("write", [(1, "missing ':' after the action type")], False),
        ("cart.add", [(1, "missing ':' after the action type")], False),
        ("create:a.b", [(1, 'action type "create" is not accepted; use "write"')], False),
        ("MUTATE:a.b", [(1, 'action type "MUTATE" is not accepted; use "write"')], False),
        ("Write:a.b", [(1, 'invalid action type "Write"; must be one of: read, write, delete, navigate')], False),
        (" write:a.b", [(1, 'invalid action type " write"; must be one of: read, write, delete, navigate')], False),
        ("write:", [(7, "missing intent")], True),
        ("write:Cart.add", [(7, 'invalid intent "Cart.add"; must be entity.verb in lower case')], True),
        ("write:cart", [(7, 'invalid intent "cart"; must be entity.verb in lower case')], True),
        ("write:a.b.c!high", [(7, 'invalid intent "a.b.c"; must be entity.verb in lower case')], True),
        ("write:a.b ?confirm", [(7, 'invalid intent "a.b "; must be entity.verb in lower case')], True),
    ],
)
def test_stopping_errors(value: str, errors: list[tuple[int, str]], intent_error: bool) -> None:
    r = expand(value)
    assert r.errors == errors
    assert r.intent_error is intent_error
    assert r.stopped and r.attrs == {} and r.parts == {}


BASE = {"axag-action-type": "write", "axag-intent": "a.b"}
RISKS = "; must be one of: none, low, medium, high, critical"


@pytest.mark.parametrize(
    ("value", "errors", "extra"),
    [
        ("write:a.b!huge", [(11, 'invalid risk level "huge"' + RISKS)], {}),
        ("write:a.b!High?confirm", [(11, 'invalid risk level "High"' + RISKS)], {"axag-confirmation-required": "true"}),
        ("write:a.b!", [(10, "missing risk level after '!'")], {}),
        ("write:a.b!?async", [(10, "missing risk level after '!'")], {"axag-async": "true"}),
        ("write:a.b?confirm&colour=red", [(19, 'unknown key "colour"')], {"axag-confirmation-required": "true"}),
        ("write:a.b?confrm", [(11, 'unknown key "confrm"; did you mean "confirm"?')], {}),
        ("write:a.b?confirm&confirm=false", [(19, 'repeated key "confirm"')], {"axag-confirmation-required": "true"}),
        ("write:a.b?confirm=yes", [(19, '"confirm" must be true or false, not "yes"')], {}),
        ("write:a.b?async=True", [(17, '"async" must be true or false, not "True"')], {}),
        ("write:a.b?scope=", [(16, 'empty value for "scope"')], {}),
        ("write:a.b?scope", [(11, '"scope" needs a value')], {}),
        ("write:a.b?roles", [(11, '"roles" needs a value')], {}),
        ("write:a.b?scope=Tenant", [(17, 'invalid scope "Tenant"; must be one of: public, user, tenant, global')], {}),
        ("write:a.b?tenant=loose", [(18, 'invalid tenant boundary "loose"; must be one of: strict, relaxed')], {}),
        ("write:a.b?roles=a,,b", [(19, 'empty item in "roles"')], {}),
        ("write:a.b?roles=a,", [(18, 'empty item in "roles"')], {}),
        ("write:a.b?roles=,a", [(17, 'empty item in "roles"')], {}),
        ("write:a.b?req=a,b.c,d e", [(17, 'invalid item "b.c" in "req"'), (21, 'invalid item "d e" in "req"')], {}),
        ("write:a.b?opt=x=y", [(15, 'invalid item "x=y" in "opt"')], {}),
        ("write:a.b?=x", [(11, "missing key before '='")], {}),
        ("write:a.b?", [(10, "empty pair after '?'")], {}),
        ("write:a.b?async&", [(16, "empty pair after '&'")], {"axag-async": "true"}),
        ("write:a.b?async&&confirm", [(16, "empty pair after '&'")],
         {"axag-async": "true", "axag-confirmation-required": "true"}),
        ("write:a.b!high!x", [(11, 'invalid risk level "high!x"' + RISKS)], {}),
    ],
)
def test_dropping_errors(value: str, errors: list[tuple[int, str]], extra: dict[str, str]) -> None:
    r = expand(value)
    assert r.errors == errors
    assert not r.stopped and not r.intent_error
    assert r.attrs == {**BASE, **extra}


def test_several_errors_in_one_macro() -> None:
    r = expand("write:a.b!huge?confirm=yes&scope=user&x=1&effects=a,a")
    assert [c for c, _ in r.errors] == [11, 24, 39]
    assert r.attrs == {**BASE, "axag-scope": "user", "axag-side-effects": '["a","a"]'}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("writeadl:.!?&=,_-xhigconfmsp Ž"), max_size=40))
def test_never_crashes_and_columns_are_inside(value: str) -> None:
    r = expand(value)
    for col, detail in r.errors:
        assert 1 <= col <= max(1, len(value)) and detail
    for start, end in r.parts.values():
        assert 0 <= start <= end <= len(value)
    if r.stopped:
        assert r.attrs == {}
