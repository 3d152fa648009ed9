"""A failing and a passing example per rule, printed by `axag rule`.

Generated from fixtures/rules/<code>/ by tests/test_rule_examples.py (AXAG_UPDATE_GOLDENS=1 rewrites it).
"""

from __future__ import annotations

EXAMPLES: dict[int, tuple[str, str]] = {
    1: (
        '<form action="/search">\n  <input name="q">\n  <button>Search</button>\n</form>\n<form action="/x"><input name="a"><input type="submit" value="Go"></form>\n<div onclick="open()">Open</div>\n<button type="button">Toggle nothing</button>\n<a href="javascript:void(0)">Run</a>\n<span role="button">Press</span>\n<div hx-post="/save">Save</div>\n<input type="button" value="Go">\n<section axag-risk-level="high">No intent</section>\n…',
        '<form axag-intent="search.run" axag-action-type="read">\n  <input name="q">\n  <button>Search</button>\n</form>\n<form id="f1"><input name="a"><button axag-intent="item.save" axag-action-type="write">Save</button></form>\n<div id="panel"><input name="x"></div>\n<form id="f2"><input name="x"></form>\n<button type="button" axag-intent="item.load" axag-action-type="read" axag-params-from="#f2">Load</button>\n<button type="reset">Reset</button>\n<button type="button" aria-expanded="false">Menu</button>\n<button disabled>Later</button>\n<form method="dialog"><button>Close</button></form>\n…',
    ),
    2: (
        '<button axag-intent="cart.add_item" axag-action-type="write">Add</button>\n<a href="/o" axag-intent="order.view" axag-action-type="navigate">Order</a>',
        '<button axag-intent="cart.add_item" axag-entity="cart" axag-action-type="write">Add</button>\n<button axag="write:cart.clear!low">Clear</button>',
    ),
    3: (
        '<button axag-intent="cart.view">View</button>\n<div>\n  <form axag-intent="search.run" axag-risk-level="none"><input name="q"></form>\n</div>',
        '<button axag-intent="cart.view" axag-action-type="read">View</button>\n<button axag="read:cart.list">List</button>\n<button axag-intent="cart.edit" axag-action-type="Write">Edit</button>\n<button axag-intent="cart.make" axag-action-type="create">Make</button>\n<button axag="update:cart.redo">Stopped macro: 027 only</button>',
    ),
    4: (
        '<button axag-intent="cart.view" axag-action-type="update">View</button>\n<button axag-intent="cart.edit" axag-action-type=" Write">Edit</button>\n<button axag-intent="cart.list" axag-action-type="">List</button>',
        '<button axag-intent="cart.view" axag-action-type="read">View</button>\n<button axag-intent="cart.make" axag-action-type="create">Make (103)</button>\n<button axag-intent="cart.swap" axag-action-type="MUTATE">Swap (103)</button>',
    ),
    5: (
        '<button axag-intent="cart.view" axag-action-type="read" axag-risk-level="severe">View</button>\n<button axag-intent="cart.edit" axag-action-type="write" axag-risk-level="High">Edit</button>\n<button axag-intent="cart.list" axag-action-type="read" axag-risk-level="">List</button>',
        '<button axag-intent="cart.view" axag-action-type="read" axag-risk-level="none">View</button>\n<button axag-intent="cart.edit" axag-action-type="write" axag-risk-level="critical">Edit</button>',
    ),
    6: (
        '<button axag-intent="account.close" axag-action-type="delete" axag-risk-level="high">Close</button>\n<button axag-intent="account.wipe" axag-action-type="delete" axag-risk-level="critical"\n        axag-confirmation-required="false">Wipe</button>\n<button axag="delete:account.purge!critical">Purge</button>',
        '<button axag-intent="account.close" axag-action-type="delete" axag-risk-level="high"\n        axag-confirmation-required="true">Close</button>\n<button axag-intent="account.edit" axag-action-type="write" axag-risk-level="medium">Edit</button>\n<button axag-intent="account.wipe" axag-action-type="delete" axag-risk-level="critical"\n        axag-confirmation-required="yes">Wipe (105 only)</button>\n<button axag="delete:account.purge!critical?confirm">Purge</button>',
    ),
    7: (
        '<button axag-intent="cart.add_item" axag-action-type="write">Add</button>\n<button axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="high">Clear</button>',
        '<button axag-intent="cart.add_item" axag-action-type="write" axag-idempotent="false">Add</button>\n<button axag-intent="cart.clear" axag-action-type="delete" axag-idempotent="maybe">Clear (105)</button>\n<button axag-intent="cart.view" axag-action-type="read">View</button>',
    ),
    8: (
        '<button axag-intent="room.book" axag-action-type="write"\n        axag-required-parameters=\'["room_id", "nights"]\'\n        axag-optional-parameters=\'["nights", {"name": "note"}]\'>Book</button>\n<button axag-intent="room.hold" axag-action-type="write"\n        axag-required-parameters=\'[{"name": "room_id"}]\'\n        axag-optional-parameters=\'[{"name": "room_id"}]\'>Hold</button>',
        '<button axag-intent="room.book" axag-action-type="write"\n        axag-required-parameters=\'["room_id"]\' axag-optional-parameters=\'["nights"]\'>Book</button>\n<button axag-intent="room.hold" axag-action-type="write"\n        axag-required-parameters=\'["room_id", "room_id"]\'>Hold (118)</button>',
    ),
    9: (
        '<button axag-intent="room.book" axag-action-type="write"\n        axag-required-parameters=\'["room_id",]\'>Book</button>\n<button axag-intent="room.hold" axag-action-type="write" axag-optional-parameters=\'{"name": "x"}\'>Hold</button>\n<button axag-intent="room.free" axag-action-type="write" axag-required-parameters=\'["a", 42]\'>Free</button>',
        '<button axag-intent="room.book" axag-action-type="write"\n        axag-required-parameters=\'["room_id", {"name": "nights", "type": "integer"}]\'>Book</button>\n<button axag-intent="room.list" axag-action-type="read" axag-optional-parameters=\'[]\'>List</button>',
    ),
    10: (
        '<button axag-intent="cart.add_item" axag-action-type="write">Add</button>\n<button axag-intent="cart.remove_item" axag-action-type="delete">Remove</button>\n<button axag="read:cart.view">View</button>',
        '<button axag-intent="cart.add_item" axag-action-type="write">Add</button>\n<button axag-intent="cart.checkout" axag-action-type="write">Checkout</button>',
    ),
    11: (
        '<button axag-intent="report.publish" axag-action-type="write" axag-approval-required="true">Publish</button>\n<button axag-intent="report.export" axag-action-type="read" axag-required-roles=\'["analyst"]\'>Export</button>\n<div axag-required-roles=\'["editor"]\'>\n  <button axag-intent="report.edit" axag-action-type="write">Edit</button>\n</div>',
        '<button axag-intent="report.publish" axag-action-type="write" axag-approval-required="true"\n        axag-scope="tenant">Publish</button>\n<div axag-scope="user">\n  <button axag-intent="report.export" axag-action-type="read" axag-required-roles=\'["analyst"]\'>Export</button>\n</div>\n<button axag-intent="report.edit" axag-action-type="write" axag-required-roles=\'["editor"]\'\n        axag-scope="team">Edit (107)</button>\n<button axag-intent="report.view" axag-action-type="read" axag-approval-roles=\'[]\'>View</button>',
    ),
    12: (
        '<button axag-intent="payout.send" axag-action-type="write" axag-approval-required="true">Send</button>\n<button axag-intent="payout.undo" axag-action-type="write" axag-approval-required="true"\n        axag-approval-roles=\'[]\'>Undo</button>',
        '<button axag-intent="payout.send" axag-action-type="write" axag-approval-required="true"\n        axag-approval-roles=\'["finance"]\'>Send</button>\n<button axag-intent="payout.view" axag-action-type="read" axag-approval-required="false">View</button>\n<button axag-intent="payout.undo" axag-action-type="write" axag-approval-required="true"\n        axag-approval-roles=\'["finance",]\'>Undo (106)</button>',
    ),
    13: (
        '<button axag-intent="secret.view" axag-action-type="read" axag-risk-level="critical">View</button>',
        '<button axag-intent="secret.view" axag-action-type="read" axag-risk-level="high">View</button>\n<button axag-intent="secret.rotate" axag-action-type="write" axag-risk-level="critical">Rotate</button>',
    ),
    14: (
        '<button axag-intent="user.create" axag-action-type="write"\n        axag-preconditions=\'["email is verified", "user must exist"]\'>Create</button>\n<button axag-intent="purchase_order.add" axag-action-type="write"\n        axag-preconditions=\'["Purchase order already exists."]\'>Add</button>\n<button axag-intent="account.signup" axag-action-type="write" axag-entity="account"\n        axag-preconditions=\'["account must already exist"]\'>Sign up</button>',
        '<button axag-intent="user.create" axag-action-type="write"\n        axag-preconditions=\'["team must exist", "user must not exist"]\'>Create</button>\n<button axag-intent="user.update" axag-action-type="write" axag-preconditions=\'["user must exist"]\'>Update</button>\n<button axag-intent="user.create_copy" axag-action-type="read" axag-preconditions=\'["user must exist"]\'>Copy</button>',
    ),
    15: (
        '<a href="/next" axag-intent="wizard.next" axag-action-type="navigate" axag-side-effects=\'["saves draft"]\'>Next</a>',
        '<a href="/next" axag-intent="wizard.next" axag-action-type="navigate" axag-side-effects=\'[]\'>Next</a>\n<a href="/back" axag-intent="wizard.back" axag-action-type="navigate">Back</a>\n<button axag-intent="wizard.save" axag-action-type="write" axag-side-effects=\'["saves draft"]\'>Save</button>',
    ),
    16: (
        '<button axag-intent="member.invite" axag-action-type="write" axag-scope="user"\n        axag-approval-required="true" axag-approval-roles=\'["owner", "tenant_admin"]\'>Invite</button>\n<button axag-intent="member.remove" axag-action-type="delete"\n        axag-required-roles=\'["Tenant_Owner"]\'>Remove</button>',
        '<button axag-intent="member.invite" axag-action-type="write" axag-scope="tenant"\n        axag-approval-required="true" axag-approval-roles=\'["tenant_admin"]\'>Invite</button>\n<button axag-intent="member.list" axag-action-type="read" axag-scope="user"\n        axag-required-roles=\'["admin_tenant"]\'>List</button>',
    ),
    17: (
        '<button axag-intent="mail.send" axag-action-type="write" axag-idempotent="false">Send</button>\n<button axag-intent="mail.drop" axag-action-type="delete" axag-idempotent="false" axag-side-effects=\'[]\'>Drop</button>',
        '<button axag-intent="mail.send" axag-action-type="write" axag-idempotent="false"\n        axag-side-effects=\'["sends an email"]\'>Send</button>\n<button axag-intent="mail.save" axag-action-type="write" axag-idempotent="true">Save</button>\n<button axag-intent="mail.post" axag-action-type="write">Post (007 only)</button>',
    ),
    18: (
        '<button axag-intent="profile.update" axag-action-type="write" axag-scope="global">Save</button>\n<div axag-scope="global">\n  <button axag-intent="my_account.close" axag-action-type="delete">Close</button>\n</div>',
        '<button axag-intent="profile.update" axag-action-type="write" axag-scope="user">Save</button>\n<button axag-intent="settings.update" axag-action-type="write" axag-scope="global">Settings</button>',
    ),
    19: (
        '<button axag-intent="tenant.reset" axag-action-type="write" axag-scope="tenant"\n        axag-required-roles=\'["SuperAdmin"]\'>Reset</button>\n<div axag-scope="tenant" axag-required-roles=\'["super-admin"]\'>\n  <button axag-intent="tenant.purge" axag-action-type="delete">Purge</button>\n</div>',
        '<button axag-intent="tenant.reset" axag-action-type="write" axag-scope="global"\n        axag-required-roles=\'["superadmin"]\'>Reset</button>\n<button axag-intent="tenant.view" axag-action-type="read" axag-scope="tenant"\n        axag-required-roles=\'["superadmins"]\'>View</button>',
    ),
    20: (
        '<button axag-intent="order.view" axag-action-type="read" axag-scope="user">View</button>\n<button axag-intent="order.cancel" axag-action-type="write" axag-scope="tenant">Cancel</button>\n<button axag-intent="order.refund" axag-action-type="write" axag-scope="tenant">Refund</button>\n<div axag-scope="global">\n  <button axag-intent="order.purge" axag-action-type="delete">Purge</button>\n</div>',
        '<button axag-intent="order.view" axag-action-type="read" axag-scope="user">View</button>\n<button axag-intent="order.cancel" axag-action-type="write" axag-scope="user">Cancel</button>\n<button axag-intent="invoice.view" axag-action-type="read" axag-scope="tenant">Invoice</button>\n<button axag-intent="order.note" axag-action-type="write">No scope</button>',
    ),
    21: (
        '<button axag-intent="file.remove" axag-action-type="delete">Remove</button>',
        '<button axag-intent="file.remove" axag-action-type="delete" axag-scope="user">Remove</button>\n<div axag-scope="tenant"><button axag-intent="file.purge" axag-action-type="delete">Purge</button></div>\n<button axag-intent="file.drop" axag-action-type="delete" axag-scope="everyone">Drop (107)</button>',
    ),
    22: (
        '<button axag-intent="team.rename" axag-action-type="write" axag-scope="user">Rename</button>\n<div axag-scope="user"><button axag-intent="billing.update" axag-action-type="write">Update</button></div>',
        '<button axag-intent="team.rename" axag-action-type="write" axag-scope="tenant">Rename</button>\n<button axag-intent="team.view" axag-action-type="read" axag-scope="user">View</button>\n<button axag-intent="profile.rename" axag-action-type="write" axag-scope="user">Profile</button>',
    ),
    23: (
        '<button axag-intent="cart.add_item" axag-action-type="write">Add</button>\n<button axag-intent="cart.clear" axag-action-type="delete">Clear</button>',
        '<button axag-intent="cart.add_item" axag-action-type="write" axag-risk-level="low">Add</button>\n<button axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="huge">Clear (005)</button>\n<button axag-intent="cart.view" axag-action-type="read">View</button>',
    ),
    24: (
        '<button axag-intent="note.delete" axag-action-type="delete" axag-risk-level="low">Delete</button>\n<button axag-intent="note.purge" axag-action-type="delete" axag-risk-level="medium">Purge</button>',
        '<button axag-intent="note.delete" axag-action-type="delete" axag-risk-level="high">Delete</button>\n<button axag-intent="note.edit" axag-action-type="write" axag-risk-level="low">Edit</button>',
    ),
    25: (
        '<button axag-intent="log.view" axag-action-type="read" axag-risk-level="medium">View</button>\n<button axag="read:log.export!high">Export</button>',
        '<button axag-intent="log.view" axag-action-type="read" axag-risk-level="low">View</button>\n<button axag-intent="log.dump" axag-action-type="read" axag-risk-level="critical">Dump (013)</button>',
    ),
    26: (
        '<button axag-intent="plan.change" axag-action-type="read" axag-risk-level="medium">Change</button>\n<button axag-intent="plan.cancel" axag-action-type="delete" axag-risk-level="high"\n        axag-confirmation-required="true" axag-idempotent="true">Cancel</button>\n<button axag-intent="plan.wipe" axag-action-type="delete" axag-risk-level="critical"\n        axag-confirmation-required="true" axag-idempotent="true">Wipe</button>\n<button axag-intent="plan.send" axag-action-type="write" axag-risk-level="critical"\n        axag-confirmation-required="true" axag-approval-required="true" axag-preconditions=\'["ready"]\'>Send</button>',
        '<button axag-intent="plan.change" axag-action-type="read" axag-risk-level="medium"\n        axag-confirmation-required="true" axag-idempotent="true">Change</button>\n<button axag-intent="plan.cancel" axag-action-type="delete" axag-risk-level="high"\n        axag-confirmation-required="true" axag-idempotent="true" axag-preconditions=\'["active"]\'>Cancel</button>\n<button axag-intent="plan.add" axag-action-type="write" axag-risk-level="medium"\n        axag-confirmation-required="true">Add (007, not 026)</button>\n<button axag-intent="plan.view" axag-action-type="read" axag-risk-level="low">View</button>',
    ),
    27: (
        '<button axag="read-cart.view">Missing colon</button>\n<button axag="write:Cart.add">Bad intent</button>\n<button axag="write:cart.add!huge?color=red">Bad risk and key</button>\n<button axag=" ">Empty</button>',
        '<button axag="write:cart.add!low?confirm&idempotent=false&roles=admin,owner">Add</button>\n<button axag="read:cart.view?scope=user">View</button>',
    ),
    28: (
        '<button axag="write:cart.add!low" axag-risk-level="high">Add</button>\n<button axag="write:cart.drop?roles=a,b" axag-approval-roles=\'["a"]\'>Drop</button>',
        '<button axag="write:cart.add!low" axag-risk-level="low">Add</button>\n<button axag="write:cart.drop?roles=a,b" axag-approval-roles=\'[ "a", "b" ]\'>Drop</button>\n<button axag="write:cart.keep" axag-risk-level="low">Keep</button>',
    ),
    29: (
        '<form axag-intent="contact.send" axag-action-type="write">\n  <input type="email">\n  <textarea id="message"></textarea>\n  <input name="subject">\n  <button>Send</button>\n</form>',
        '<form axag-intent="contact.send" axag-action-type="write">\n  <input type="email" name="email">\n  <textarea name="message" id="message"></textarea>\n  <input type="hidden">\n  <button>Send</button>\n</form>',
    ),
    30: (
        '<form axag-intent="signup.submit" axag-action-type="write">\n  <label>Email <input type="email" name="email"></label>\n  <label>Age <input type="number" name="age" required></label>\n  <label>Plan <select name="plan"><option>free</option><option>pro</option></select></label>\n  <button>Sign up</button>\n</form>',
        '<form axag-intent="signup.submit" axag-action-type="write">\n  <label>Email <input type="email" name="email" required></label>\n  <label>Age <input type="number" name="age"></label>\n  <label>Plan <select name="plan"><option>free</option><option>pro</option><option>team</option></select></label>\n  <label>Note <input name="note"></label>\n  <button>Sign up</button>\n</form>',
    ),
    31: (
        '<button axag-intent="cart.clear" axag-action-type="delete"></button>\n<a href="/x" axag-intent="cart.open" axag-action-type="navigate"><img src="i.png"></a>\n<input type="submit" axag-intent="cart.pay" axag-action-type="write">\n<div role="switch" axag-intent="cart.toggle" axag-action-type="write"> </div>\n<button axag-intent="cart.ref" axag-action-type="read" aria-labelledby="missing"></button>',
        '<button axag-intent="cart.clear" axag-action-type="delete">Clear</button>\n<button axag-intent="cart.close" axag-action-type="write" aria-label="Close"></button>\n<span id="lbl">Refresh</span>\n<button axag-intent="cart.ref" axag-action-type="read" aria-labelledby="lbl"></button>\n<label for="pay">Pay now</label>\n<input id="pay" type="submit" axag-intent="cart.pay" axag-action-type="write">\n<label>Buy <input type="button" axag-intent="cart.buy" axag-action-type="write"></label>\n<input type="image" alt="Go" axag-intent="cart.go" axag-action-type="write">\n<a href="/x" axag-intent="cart.open" axag-action-type="navigate"><img src="i.png" alt="Open cart"></a>\n<button axag-intent="cart.help" axag-action-type="read" title="Help"></button>\n<div axag-intent="cart.panel" axag-action-type="read"></div>',
    ),
    32: (
        '<form axag-intent="search.run" axag-action-type="read">\n  <input name="q" placeholder="Search">\n  <label for="lim">Limit</label><input id="lim" name="limit" type="number">\n  <button>Go</button>\n</form>',
        '<form axag-intent="search.run" axag-action-type="read">\n  <label>Query <input name="q" placeholder="Search"></label>\n  <input name="page" aria-label="Page">\n  <input name="size" axag-parameter-description="Page size">\n  <button>Go</button>\n</form>',
    ),
    33: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="{{ risk }}">Add</button>\n<div axag-scope="${scope}"><button axag-intent="cart.view" axag-action-type="read">View</button></div>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low"\n        axag-confirmation-required="true" axag-confirmation-message="Add {{ qty }} items?"\n        axag-required-parameters=\'["qty"]\'>Add</button>',
    ),
    34: (
        '<button axag-intent="Cart.Add" axag-action-type="write">Add</button>\n<button axag-intent="cart" axag-action-type="write">Cart</button>\n<button axag-intent="" axag-action-type="write">Empty</button>\n<button axag-intent="cart._add" axag-action-type="write">Underscore</button>',
        '<button axag-intent="cart.add_item" axag-action-type="write">Add</button>\n<button axag-intent="report.export_v2" axag-action-type="read">Export</button>\n<button axag="write:Cart.Add">Macro intent (027 only)</button>',
    ),
    35: (
        '<button axag-intent="cart.add" axag-entity="Cart" axag-action-type="write">Add</button>\n<button axag-intent="cart.drop" axag-entity="cart-item" axag-action-type="write">Drop</button>',
        '<button axag-intent="cart.add" axag-entity="cart" axag-action-type="write">Add</button>\n<button axag-intent="cart.fill" axag-entity="purchase_order" axag-action-type="write">Fill (139)</button>',
    ),
    36: (
        '<button axag-intent="project.create" axag-action-type="write" axag-scope="tenant"\n        axag-required-parameters=\'["name", "tenantId"]\' axag-optional-parameters=\'[{"name": "org_id"}]\'>Create</button>\n<form axag-tenant-boundary="strict" axag-scope="tenant" axag-intent="project.move" axag-action-type="write">\n  <label>Workspace <input name="workspace-id"></label>\n  <button>Move</button>\n</form>',
        '<button axag-intent="project.create" axag-action-type="write" axag-scope="user"\n        axag-required-parameters=\'["name", "tenant_id"]\'>Create</button>\n<button axag-intent="project.rename" axag-action-type="write" axag-scope="tenant"\n        axag-required-parameters=\'["name", "tenant_name"]\'>Rename</button>',
    ),
    37: (
        '<button axag-intent="account.delete" axag-action-type="delete" axag-risk-level="critical">Delete</button>\n<button axag-intent="account.close" axag-action-type="delete" axag-risk-level="high">Close</button>',
        '<button axag-intent="account.delete" axag-action-type="delete" axag-risk-level="critical">Delete</button>\n<button axag-intent="account.view" axag-action-type="read" axag-risk-level="medium">View</button>',
    ),
    100: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk="high">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-foo-bar="1" axag-x-acme-team="cart">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="high" axag-x-acme-team="cart">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-constraints=\'{}\'>Legacy (101)</button>',
    ),
    101: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer"}]\' axag-constraints=\'{"qty": {"min": 1}}\'>Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-constraints=\'{"rule": "be nice"}\'>Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 1}]\'>Add</button>',
    ),
    102: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-tenant-context="org">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" AXAG-CROSS-TENANT="true">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-tenant-boundary="strict">Add</button>',
    ),
    103: (
        '<button axag-intent="cart.add" axag-action-type="create">Add</button>\n<button axag-intent="cart.swap" axag-action-type="MUTATE">Swap</button>',
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>\n<button axag="create:cart.make">Macro (027)</button>',
    ),
    104: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-skip="true">Add</button>',
        '<!-- axag-disable-next-line AXAG-LINT-007 -- reviewed -->\n<button axag-intent="cart.add" axag-action-type="write">Add</button>',
    ),
    105: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-idempotent="yes">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-async>Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-confirmation-required="">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-idempotent="true" axag-async="false">Add</button>',
    ),
    106: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-side-effects=\'"emails"\'>Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-preconditions=\'["a", ""]\'>Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-approval-roles=\'["admin",]\'>Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-side-effects=\'["emails"]\' axag-preconditions=\'["cart is open"]\'>Add</button>',
    ),
    107: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-scope="team">Add</button>\n<div axag-scope="User"><button axag-intent="cart.add" axag-action-type="write">Add</button></div>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-scope="tenant">Add</button>',
    ),
    108: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-tenant-boundary="loose">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-tenant-boundary="relaxed">Add</button>',
    ),
    109: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-description="  ">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-workflow-id="-bad" axag-version="v1">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-workflow-step="3" axag-workflow-total-steps="2">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-description="Add to cart" axag-workflow-id="checkout" axag-workflow-step="1"\n        axag-workflow-total-steps="3" axag-version="1.2" axag-deprecated-replacement="cart.add_item">Add</button>',
    ),
    110: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "minimum": 1}]\'>Add</button>\n<form axag-intent="cart.add" axag-action-type="write">\n  <input name="qty" axag-parameter-items=\'{"kind": "string"}\'>\n</form>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "min": 1}]\'>Add</button>',
    ),
    111: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "int"}]\'>Add</button>\n<form axag-intent="cart.add" axag-action-type="write"><input name="qty" axag-parameter-type="float"></form>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer"}]\'>Add</button>',
    ),
    112: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "mail", "format": "e-mail"}]\'>Add</button>\n<form axag-intent="cart.add" axag-action-type="write"><input name="phone" axag-parameter-format="phone"></form>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "mail", "format": "email"}, {"name": "u", "format": "url"}]\'>Add</button>',
    ),
    113: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["2fa", {"type": "string"}, "_axag_x"]\'>Add</button>\n<form axag-intent="cart.add" axag-action-type="write"><input name="aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"></form>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty", {"name": "note"}]\'>Add</button>\n<form axag-intent="cart.add" axag-action-type="write"><input name="display-name"></form>',
    ),
    114: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "min": "one"}]\'>Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "min": 1, "description": "How many"}]\'>Add</button>',
    ),
    115: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "string", "min": 1}]\'>Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 1}]\'>Add</button>',
    ),
    116: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 5, "default": 2}]\'>Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 5, "default": 6}]\'>Add</button>',
    ),
    117: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "code", "pattern": "(?<=a)b"}]\'>Add</button>\n<form axag-intent="cart.add" axag-action-type="write"><input name="zip" pattern="(a+)+$"></form>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "code", "pattern": "^[A-Z]{3}$"}]\'>Add</button>',
    ),
    118: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty", "qty"]\'>Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["userName"]\' axag-optional-parameters=\'["user_name"]\'>Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty"]\' axag-optional-parameters=\'["note"]\'>Add</button>',
    ),
    119: (
        '<form axag-intent="cart.add" axag-action-type="write">\n  <input name="displayName">\n  <input name="display-name">\n  <input type="radio" name="size" value="s">\n  <input type="checkbox" name="size" value="m">\n</form>',
        '<form axag-intent="cart.add" axag-action-type="write">\n  <input type="radio" name="size" value="s"><input type="radio" name="size" value="m">\n  <input name="phone[]"><input name="phone[]">\n</form>',
    ),
    120: (
        '<form axag-intent="cart.add" axag-action-type="write">\n  <input type="hidden" name="csrf" axag-parameter-description="token">\n</form>\n<input name="stray" axag-parameter-type="string">',
        '<form axag-intent="cart.add" axag-action-type="write">\n  <input name="qty" axag-parameter-type="integer" axag-parameter-description="How many">\n</form>',
    ),
    121: (
        '<!-- a.html -->\n<button axag-intent="cart.add" axag-action-type="write">Add</button>\n<!-- b.html -->\n<p>Other page</p>\n<button axag-intent="cart.add" axag-action-type="read">Add</button>',
        '<!-- a.html -->\n<button axag-intent="cart.add" axag-action-type="write">Add</button>\n<!-- b.html -->\n<button axag-intent="cart.add" axag-action-type="write">Add</button>',
    ),
    122: (
        '<!-- a.html -->\n<button axag-intent="cart.add" axag-action-type="write" axag-operation-id="add-item">Add</button>\n<!-- b.html -->\n<button axag-intent="basket.add" axag-action-type="write" axag-operation-id="add_item">Add</button>',
        '<!-- a.html -->\n<button axag-intent="cart.add" axag-action-type="write" axag-operation-id="cart_add">Add</button>\n<!-- b.html -->\n<button axag-intent="basket.add" axag-action-type="write">Add</button>',
    ),
    123: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-operation-id="add item">Add</button>\n<button axag-intent="cccccccccccccccccccccccccccccccccccccccc.vvvvvvvvvvvvvvvvvvvvvvvvvvvvvv" axag-action-type="read">Long</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-operation-id="addItem-v2">Add</button>',
    ),
    124: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["check_in"]\'\n        axag-preconditions=\'["check_out is after check_in"]\'>Book</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["check_in", "check_out"]\'\n        axag-preconditions=\'["check_out is after check_in", "balance > 0"]\'>Book</button>',
    ),
    125: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-rate-limit="10 per minute">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-rate-limit="0/hour">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-rate-limit="100/h">Add</button>',
    ),
    126: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-cooldown="5 sec">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-cooldown="0s">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-cooldown="05s">Add</button>',
    ),
    127: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-approval-required="true" axag-approval-roles=\'["a"]\' axag-approval-count="0">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-approval-required="true" axag-approval-roles=\'["a"]\' axag-approval-count="2">Add</button>',
    ),
    128: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-approval-count="2" axag-approval-roles=\'["a"]\'>Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-confirmation-required="false" axag-confirmation-message="Sure?">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-approval-required="true" axag-approval-count="2" axag-approval-roles=\'["a"]\'>Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-confirmation-required="maybe" axag-confirmation-message="Sure? (105)">Add</button>',
    ),
    129: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty"]\' axag-confirmation-required="true"\n        axag-confirmation-message="Add {{ count }} items?">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty"]\' axag-confirmation-required="true"\n        axag-confirmation-message="Add {{{qty}}} items?">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty"]\' axag-confirmation-required="true"\n        axag-confirmation-message="Add {{qty}} items?">Add</button>',
    ),
    130: (
        '<section axag-tenant-boundary="strict">\n  <div axag-tenant-boundary="relaxed"><button axag-intent="cart.add" axag-action-type="write">Add</button></div>\n</section>',
        '<section axag-tenant-boundary="relaxed">\n  <div axag-tenant-boundary="strict"><button axag-intent="cart.add" axag-action-type="write">Add</button></div>\n</section>',
    ),
    131: (
        '<button AXAG-INTENT="cart.add" axag-Action-Type="write">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" AXAG-RISK-LEVEL="low">Repeat (132)</button>',
    ),
    132: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-risk-level="high">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-idempotent="true" AXAG-IDEMPOTENT="true">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>',
    ),
    133: (
        '<!-- axag-disable-next-line AXAG-LINT-006 -- not needed -->\n<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>',
        '<!-- axag-disable-next-line AXAG-LINT-007 -- reviewed -->\n<button axag-intent="cart.add" axag-action-type="write">Add</button>',
    ),
    134: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters="["qty", "note"]">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty", "note"]\'>Add</button>',
    ),
    135: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty", "stock"]\'\n        axag-preconditions=\'["qty must be <= stock + 1"]\'>Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty", "stock"]\'\n        axag-preconditions=\'["qty <= stock", "cart must be open"]\'>Add</button>',
    ),
    136: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer"}, {"name": "note"}]\'\n        axag-preconditions=\'["qty > note"]\'>Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer"}, {"name": "max", "type": "number"}]\'\n        axag-preconditions=\'["qty <= max"]\'>Add</button>',
    ),
    137: (
        '<div axag-scope="user" axag-required-roles=\'["member"]\'><p>No action here</p></div>\n<button axag-intent="cart.add" axag-action-type="write">Add</button>',
        '<div axag-scope="user" axag-required-roles=\'["member"]\'><p><button axag-intent="cart.add" axag-action-type="write">Add</button></p></div>',
    ),
    138: (
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>\n<button axag="read:cart.view">View</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-description="Add the item to the cart">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-description="">Empty (109)</button>',
    ),
    139: (
        '<button axag-intent="cart.add" axag-entity="basket" axag-action-type="write">Add</button>',
        '<button axag-intent="cart.add" axag-entity="cart" axag-action-type="write">Add</button>',
    ),
    140: (
        '<button axag-intent="cart.add" axag-action-type="write" type="button" axag-params-from="filters">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" type="button" axag-params-from="#missing">Add</button>',
        '<div id="filters"><input name="q"></div>\n<button axag-intent="cart.add" axag-action-type="write" type="button" axag-params-from="#filters">Add</button>',
    ),
    141: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-schema="zod:">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-schema="graphql:AddItem">Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-schema="zod:src/schemas/cart.ts#AddItem">Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-schema="openapi:addItem">Add</button>',
    ),
    142: (
        '<form axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "string"}]\'>\n  <input name="qty" type="number">\n</form>',
        '<form axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "number"}]\'>\n  <input name="qty" type="number">\n</form>',
    ),
    143: (
        '<!-- axag-disable-next-line -->\n<button axag-intent="cart.add" axag-action-type="write">Add</button>\n<!-- axag-disable-next-line AXAG-LINT-999 -->\n<button axag-intent="cart.add" axag-action-type="write">Add</button>',
        '<!-- axag-disable-next-line AXAG-LINT-007 -->\n<button axag-intent="cart.add" axag-action-type="write">Add</button>',
    ),
    144: (
        '<button axag-intent="cart.add" axag-action-type="write" axag-side-effects=\'["email", "email"]\'>Add</button>\n<button axag-intent="cart.add" axag-action-type="write" axag-approval-required="true" axag-approval-roles=\'["a", " a "]\'>Add</button>',
        '<button axag-intent="cart.add" axag-action-type="write" axag-side-effects=\'["email", "sms"]\'>Add</button>',
    ),
    145: (
        '<button axag-intent="slot.book" axag-action-type="write" axag-risk-level="low"\n  axag-required-parameters=\'[{"name":"start","type":"string","format":"time"}]\'>Book</button>\n(axag compile --target manifest)',
        '<button axag-intent="slot.book" axag-action-type="write" axag-risk-level="low"\n  axag-required-parameters=\'[{"name":"start","type":"string","format":"date"}]\'>Book</button>',
    ),
    146: (
        '<button axag-intent="report.run" axag-action-type="read"\n  axag-required-parameters=\'[{"name":"filter","type":"object"}]\'>Run</button>\n(axag compile --target openai --strict)',
        '<button axag-intent="report.run" axag-action-type="read"\n  axag-required-parameters=\'[{"name":"filter","type":"string"}]\'>Run</button>',
    ),
    147: (
        '<section axag-scope="tenant">\n  <button axag-intent="cart.add" axag-action-type="write" axag-scope="user">Add</button>\n</section>',
        '<section axag-scope="user">\n  <button axag-intent="cart.add" axag-action-type="write" axag-scope="tenant">Add</button>\n</section>',
    ),
    148: (
        '<form action="/claims" method="post" enctype="multipart/form-data" axag-intent="claim.submit"\n      axag-action-type="write" axag-risk-level="low" axag-description="Submit a claim">\n  <label>Amount <input name="amount" type="number"></label>\n  <label>Receipt <input type="file" name="receipt"></label>\n  <button>Submit</button>\n</form>\n<form id="avatar" action="/avatar" method="post" enctype="multipart/form-data">\n  <button axag-intent="profile.update_avatar" axag-action-type="write" axag-risk-level="low"\n          axag-description="Change the avatar">Upload</button>\n</form>\n<input type="file" name="photo" form="avatar">',
        '<form action="/claims" method="post" axag-intent="claim.submit" axag-action-type="write" axag-risk-level="low"\n      axag-description="Submit a claim">\n  <label>Amount <input name="amount" type="number"></label>\n  <label>Receipt <input type="file" name="receipt" disabled></label>\n  <fieldset disabled><input type="file" name="scan"></fieldset>\n  <input type="file" name="elsewhere" form="other">\n  <button>Submit</button>\n</form>\n<form id="other" action="/other" method="post"><input type="file" name="attachment"></form>\n<button type="button" axag-intent="claim.list" axag-action-type="read" axag-risk-level="none"\n        axag-description="List the claims">Claims</button>',
    ),
    149: (
        '<!-- openapi.yaml: getOrder takes order_id (path, integer) and expand (query, boolean); createOrder takes sku (string) and quantity (integer) in its JSON body; there is no cancelOrder -->\n<button type="button" axag-intent="order.view" axag-action-type="read" axag-risk-level="none"\n        axag-operation-id="getOrder" axag-description="Show an order"\n        axag-required-parameters=\'[{"name":"order_id","type":"string"}]\'>Show</button>\n<button type="button" axag-intent="order.create" axag-action-type="write" axag-risk-level="low"\n        axag-operation-id="createOrder" axag-description="Order an article"\n        axag-required-parameters=\'[{"name":"sku","type":"string"},{"name":"quantity","type":"number"}]\'>Order</button>\n<button type="button" axag-intent="order.cancel" axag-action-type="write" axag-risk-level="low"\n        axag-operation-id="cancelOrder" axag-description="Cancel an order">Cancel</button>',
        '<button type="button" axag-intent="order.view" axag-action-type="read" axag-risk-level="none"\n        axag-operation-id="getOrder" axag-description="Show an order"\n        axag-required-parameters=\'[{"name":"order_id","type":"integer"}]\'\n        axag-optional-parameters=\'[{"name":"expand","type":"boolean"}]\'>Show</button>\n<!-- submitted by its form: bound to the form, not to the operation -->\n<form action="/orders" method="post" axag-intent="order.create" axag-action-type="write" axag-risk-level="low"\n      axag-operation-id="createOrder" axag-description="Order an article">\n  <label>Article <input name="sku"></label>\n  <button>Order</button>\n</form>',
    ),
    190: (
        '<button>\x00binary</button>',
        '<p>text</p>',
    ),
    191: (
        'a file that cannot be read (permissions, vanished during the run)',
        'a readable file',
    ),
    192: (
        'a file from which the HTML parser produces no document',
        'any HTML document',
    ),
    193: (
        '<meta charset="utf-8">\n<p>caf�</p>',
        '<meta charset="utf-8">\n<p>café</p>',
    ),
    199: (
        'an exception inside axag while processing a file (please report it)',
        '—',
    ),
}
