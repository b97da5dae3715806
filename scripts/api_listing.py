#!/usr/bin/env python3
"""The public API of a crate as sorted text, from rustdoc's JSON (scripts/check-api).

    api_listing.py crates                 the published library crates: `package lib` lines
    api_listing.py list DOC_DIR LIB       the listing of DOC_DIR/LIB.json on stdout

One line per item a user can name, at the path the user names it by: the walk starts at
the crate root and follows public modules, `pub use` and glob re-exports. Each line is
the path, the kind and, where cheap, the signature:

    agent_tools_core::ToolRegistry struct
    agent_tools_core::ToolRegistry::call fn(&self, call: ToolCall) -> ToolResult
    agent_tools_core::ToolRegistry impl Clone
    agent_tools_core::ToolError::retry field: bool

Members are listed under their type: public fields, enum variants (and their fields),
the items of inherent impls, the traits it implements (auto traits too, blanket impls
not), and a trait's items and its impls for types of other crates. Types inside
signatures are named by their last path segment. An item of another crate re-exported
here is one line, `path kind (from crate)`, and a re-exported crate `path (crate name)`:
that crate has a listing of its own. A glob re-export of another crate's module is
enumerated from that crate's JSON in the same directory (check-api makes them all).

Standard library only. The JSON's shape is checked as it is read: anything this script
does not know stops it with the item it could not read, rather than listing less.
"""

import json
import os
import subprocess
import sys

# The format versions this was written against; another one is read all the same (every
# shape is still checked), with a note, since its listing may differ in rendering alone.
KNOWN_FORMAT_VERSIONS = {57}


class Shape(Exception):
    pass


def fail(what, value):
    text = json.dumps(value, sort_keys=True)
    if len(text) > 600:
        text = text[:600] + "…"
    raise Shape(f"unknown rustdoc JSON shape ({what}): {text}")


def tagged(value, what, known):
    """A serde enum: a bare string (unit variant) or a one-key object. Returns (tag, body)."""
    if isinstance(value, str):
        tag, body = value, None
    elif isinstance(value, dict) and len(value) == 1:
        ((tag, body),) = value.items()
    else:
        fail(what, value)
    if tag not in known:
        fail(what, value)
    return tag, body


def keys(value, what, required, optional=()):
    """Checks that an object has the required keys and no others but the optional ones."""
    if not isinstance(value, dict):
        fail(what, value)
    present = set(value)
    if not set(required) <= present or not present <= set(required) | set(optional):
        fail(what, value)
    return value


# ---------------------------------------------------------------------------------------
# Types, bounds, generics and signatures, as Rust source (short names).


def short(path):
    return path.split("::")[-1]


def render_path(p):
    keys(p, "path", ["path", "id", "args"])
    return short(p["path"]) + render_args(p["args"])


def render_args(args):
    if args is None:
        return ""
    tag, body = tagged(args, "generic args", {"angle_bracketed", "parenthesized", "return_type_notation"})
    if tag == "angle_bracketed":
        keys(body, "angle-bracketed args", ["args", "constraints"])
        parts = [render_generic_arg(a) for a in body["args"]]
        parts += [render_constraint(c) for c in body["constraints"]]
        return f"<{', '.join(parts)}>" if parts else ""
    if tag == "parenthesized":
        keys(body, "parenthesized args", ["inputs", "output"])
        out = f"({', '.join(render_type(t) for t in body['inputs'])})"
        if body["output"] is not None:
            out += f" -> {render_type(body['output'])}"
        return out
    return "(..)"


def render_generic_arg(a):
    tag, body = tagged(a, "generic arg", {"lifetime", "type", "const", "infer"})
    if tag == "lifetime":
        return body
    if tag == "type":
        return render_type(body)
    if tag == "const":
        return render_constant(body)
    return "_"


def render_constant(c):
    keys(c, "constant", ["expr", "value", "is_literal"])
    return c["expr"]


def render_constraint(c):
    keys(c, "constraint", ["name", "args", "binding"])
    name = c["name"] + render_args(c["args"])
    tag, body = tagged(c["binding"], "constraint binding", {"equality", "constraint"})
    if tag == "equality":
        return f"{name} = {render_term(body)}"
    return f"{name}: {render_bounds(body)}"


def render_term(t):
    tag, body = tagged(t, "term", {"type", "constant"})
    return render_type(body) if tag == "type" else render_constant(body)


def render_bounds(bounds):
    return " + ".join(render_bound(b) for b in bounds)


def render_bound(b):
    tag, body = tagged(b, "generic bound", {"trait_bound", "outlives", "use"})
    if tag == "trait_bound":
        keys(body, "trait bound", ["trait", "generic_params", "modifier"])
        modifier = {"none": "", "maybe": "?", "maybe_const": "~const "}.get(body["modifier"])
        if modifier is None:
            fail("trait bound modifier", body)
        return render_for(body["generic_params"]) + modifier + render_path(body["trait"])
    if tag == "outlives":
        return body
    args = []
    for a in body:
        if isinstance(a, str):
            args.append(a)
        else:
            args.append(tagged(a, "precise capturing arg", {"lifetime", "param"})[1])
    return f"use<{', '.join(args)}>"


def render_for(params):
    """`for<'a> ` of a higher-ranked bound."""
    return f"for<{', '.join(render_param(p) for p in params)}> " if params else ""


def render_type(t):
    tag, body = tagged(
        t,
        "type",
        {
            "resolved_path", "dyn_trait", "generic", "primitive", "function_pointer", "tuple",
            "slice", "array", "pat", "impl_trait", "infer", "raw_pointer", "borrowed_ref",
            "qualified_path",
        },
    )
    if tag == "resolved_path":
        return render_path(body)
    if tag == "dyn_trait":
        keys(body, "dyn trait", ["traits", "lifetime"])
        parts = []
        for poly in body["traits"]:
            keys(poly, "poly trait", ["trait", "generic_params"])
            parts.append(render_for(poly["generic_params"]) + render_path(poly["trait"]))
        if body["lifetime"] is not None:
            parts.append(body["lifetime"])
        return "dyn " + " + ".join(parts)
    if tag in ("generic", "primitive"):
        return body
    if tag == "function_pointer":
        keys(body, "function pointer", ["sig", "generic_params", "header"])
        return render_for(body["generic_params"]) + render_header(body["header"]) + "fn" + render_sig(body["sig"])
    if tag == "tuple":
        inner = ", ".join(render_type(x) for x in body)
        return f"({inner},)" if len(body) == 1 else f"({inner})"
    if tag == "slice":
        return f"[{render_type(body)}]"
    if tag == "array":
        keys(body, "array", ["type", "len"])
        return f"[{render_type(body['type'])}; {body['len']}]"
    if tag == "pat":
        keys(body, "pattern type", ["type", "__pat_unstable_do_not_use"])
        return f"{render_type(body['type'])} is {body['__pat_unstable_do_not_use']}"
    if tag == "impl_trait":
        return "impl " + render_bounds(body)
    if tag == "infer":
        return "_"
    if tag == "raw_pointer":
        keys(body, "raw pointer", ["is_mutable", "type"])
        return ("*mut " if body["is_mutable"] else "*const ") + render_type(body["type"])
    if tag == "borrowed_ref":
        keys(body, "reference", ["lifetime", "is_mutable", "type"])
        out = "&"
        if body["lifetime"] is not None:
            out += body["lifetime"] + " "
        if body["is_mutable"]:
            out += "mut "
        return out + render_type(body["type"])
    keys(body, "qualified path", ["name", "args", "self_type", "trait"])
    name = body["name"] + render_args(body["args"])
    self_type = render_type(body["self_type"])
    if body["trait"] is None:
        return f"{self_type}::{name}"
    return f"<{self_type} as {render_path(body['trait'])}>::{name}"


def render_header(h):
    keys(h, "function header", ["is_const", "is_unsafe", "is_async", "abi"])
    out = ""
    if h["is_const"]:
        out += "const "
    if h["is_async"]:
        out += "async "
    if h["is_unsafe"]:
        out += "unsafe "
    abi = h["abi"]
    if abi != "Rust":
        if isinstance(abi, dict) and len(abi) == 1:
            ((name, body),) = abi.items()
            out += f'extern "{name}" ' if not body or not body.get("unwind") else f'extern "{name}-unwind" '
        elif isinstance(abi, str):
            out += f'extern "{abi}" '
        else:
            fail("abi", abi)
    return out


def render_sig(sig):
    keys(sig, "signature", ["inputs", "output", "is_c_variadic"])
    args = []
    for pair in sig["inputs"]:
        if not (isinstance(pair, list) and len(pair) == 2):
            fail("function input", pair)
        name, ty = pair
        if name == "self":
            if ty == {"generic": "Self"}:
                args.append("self")
                continue
            if (
                isinstance(ty, dict)
                and "borrowed_ref" in ty
                and ty["borrowed_ref"].get("type") == {"generic": "Self"}
            ):
                args.append(render_type(ty).replace("Self", "self"))
                continue
            args.append(f"self: {render_type(ty)}")
            continue
        args.append(f"{name}: {render_type(ty)}")
    if sig["is_c_variadic"]:
        args.append("...")
    out = f"({', '.join(args)})"
    if sig["output"] is not None:
        out += f" -> {render_type(sig['output'])}"
    return out


def render_param(p):
    keys(p, "generic param", ["name", "kind"])
    tag, body = tagged(p["kind"], "generic param kind", {"lifetime", "type", "const"})
    if tag == "lifetime":
        keys(body, "lifetime param", ["outlives"])
        return p["name"] + (f": {' + '.join(body['outlives'])}" if body["outlives"] else "")
    if tag == "type":
        keys(body, "type param", ["bounds", "default", "is_synthetic"])
        out = p["name"]
        if body["bounds"]:
            out += ": " + render_bounds(body["bounds"])
        if body["default"] is not None:
            out += " = " + render_type(body["default"])
        return out
    keys(body, "const param", ["type", "default"])
    out = f"const {p['name']}: {render_type(body['type'])}"
    if body["default"] is not None:
        out += f" = {body['default']}"
    return out


def is_synthetic(p):
    kind = p.get("kind")
    return isinstance(kind, dict) and isinstance(kind.get("type"), dict) and kind["type"].get("is_synthetic")


def render_generics(g):
    """(`<T: Bound>`, ` where …`), without the `impl Trait` arguments' synthetic params."""
    keys(g, "generics", ["params", "where_predicates"])
    params = [render_param(p) for p in g["params"] if not is_synthetic(p)]
    preds = [render_where(w) for w in g["where_predicates"]]
    return (f"<{', '.join(params)}>" if params else "", f" where {', '.join(preds)}" if preds else "")


def render_where(w):
    tag, body = tagged(w, "where predicate", {"bound_predicate", "lifetime_predicate", "eq_predicate"})
    if tag == "bound_predicate":
        keys(body, "bound predicate", ["type", "bounds", "generic_params"])
        return f"{render_for(body['generic_params'])}{render_type(body['type'])}: {render_bounds(body['bounds'])}"
    if tag == "lifetime_predicate":
        keys(body, "lifetime predicate", ["lifetime", "outlives"])
        return f"{body['lifetime']}: {' + '.join(body['outlives'])}"
    keys(body, "eq predicate", ["lhs", "rhs"])
    return f"{render_type(body['lhs'])} = {render_term(body['rhs'])}"


def render_function(f):
    keys(f, "function", ["sig", "generics", "header", "has_body"])
    params, where = render_generics(f["generics"])
    return f"{render_header(f['header'])}fn{params}{render_sig(f['sig'])}{where}"


# ---------------------------------------------------------------------------------------
# Crates, items and the walk.

# The line's kind word for an item's `inner` tag and for a `paths` entry's kind.
ITEM_KINDS = {
    "module": "mod", "extern_crate": "crate", "use": "use", "union": "union", "struct": "struct",
    "struct_field": "field", "enum": "enum", "variant": "variant", "function": "fn",
    "trait": "trait", "trait_alias": "trait alias", "impl": "impl", "type_alias": "type",
    "constant": "const", "static": "static", "extern_type": "extern type", "macro": "macro",
    "proc_macro": "proc macro", "primitive": "primitive", "assoc_const": "const",
    "assoc_type": "type",
}
SUMMARY_KINDS = {
    "module": "mod", "extern_crate": "crate", "struct": "struct", "union": "union", "enum": "enum",
    "variant": "variant", "function": "fn", "type_alias": "type", "constant": "const",
    "trait": "trait", "trait_alias": "trait alias", "static": "static", "macro": "macro",
    "proc_attribute": "attr macro", "proc_derive": "derive macro", "primitive": "primitive",
    "extern_type": "extern type",
}
STABLE_AUTO_TRAITS = {"Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe"}
PROC_MACRO_KINDS = {"bang": "macro", "attr": "attr macro", "derive": "derive macro"}
# The namespace a kind word lives in: a glob import is shadowed only by a name of its own
# namespace (a module `tool` and a macro `tool` coexist).
VALUE_KINDS = {"fn", "const", "static"}
MACRO_KINDS = {"macro", "attr macro", "derive macro"}


def namespace(kind):
    return "value" if kind in VALUE_KINDS else "macro" if kind in MACRO_KINDS else "type"


class Crate:
    def __init__(self, doc_dir, lib):
        path = os.path.join(doc_dir, lib + ".json")
        if not os.path.exists(path):
            raise Shape(f"no {path}: `cargo rustdoc … --output-format json` did not write it")
        with open(path) as f:
            data = json.load(f)
        keys(data, "crate", ["root", "index", "paths", "external_crates", "format_version"],
             ["crate_version", "includes_private", "target"])
        if data["format_version"] not in KNOWN_FORMAT_VERSIONS:
            print(
                f"api_listing.py: {path} has rustdoc JSON format_version {data['format_version']}, "
                f"written against {sorted(KNOWN_FORMAT_VERSIONS)}; every shape is still checked",
                file=sys.stderr,
            )
        if data.get("includes_private"):
            raise Shape(f"{path} includes private items (made with --document-private-items)")
        self.doc_dir = doc_dir
        self.name = lib
        self.index = data["index"]
        self.paths = data["paths"]
        self.external = data["external_crates"]
        self.root = str(data["root"])

    def item(self, id_):
        it = self.index[str(id_)]
        keys(it, "item", ["id", "crate_id", "name", "span", "visibility", "docs", "links", "attrs",
                          "deprecation", "inner"], ["stability", "const_stability"])
        return it

    def crate_name(self, crate_id):
        if crate_id == 0:
            return self.name
        return self.external[str(crate_id)]["name"]


def inner(it):
    return tagged(it["inner"], f"item {it.get('name')!r}", set(ITEM_KINDS))


def item_kind(it):
    tag, body = inner(it)
    if tag == "proc_macro":
        keys(body, "proc macro", ["kind", "helpers"])
        kind = PROC_MACRO_KINDS.get(body["kind"])
        if kind is None:
            fail("proc macro kind", body)
        return kind
    return ITEM_KINDS[tag]


def non_exhaustive(it):
    return any(a == "non_exhaustive" or (isinstance(a, dict) and "non_exhaustive" in a) for a in it["attrs"])


class Listing:
    """The walk of one crate (`self.home`), loading the other crates' JSON it needs."""

    def __init__(self, doc_dir, lib):
        self.doc_dir = doc_dir
        self.crates = {}
        self.home = self.crate(lib)
        self.lines = set()

    def crate(self, lib):
        if lib not in self.crates:
            self.crates[lib] = Crate(self.doc_dir, lib)
        return self.crates[lib]

    def emit(self, path, text):
        self.lines.add(("::".join(path), text.startswith("impl"), text))

    # -- a module's names -----------------------------------------------------------------

    def module_bindings(self, crate, module_id, stack):
        """The names a module exports: [(name, kind, target)], target being
        ("item", crate, id) or ("summary", crate, id) for an item only `paths` knows."""
        it = crate.item(module_id)
        tag, body = inner(it)
        if tag != "module":
            fail("module expected", it)
        keys(body, "module", ["is_crate", "items", "is_stripped"])
        key = (crate.name, str(module_id))
        if key in stack:
            raise Shape(f"re-export cycle through module {it['name']} of {crate.name}")
        stack = stack | {key}
        explicit, globbed = [], []
        for child_id in body["items"]:
            child = crate.item(child_id)
            ctag, cbody = inner(child)
            if ctag == "impl":
                continue
            if child["visibility"] != "public":
                continue
            if ctag == "use":
                keys(cbody, "use", ["source", "name", "id", "is_glob"])
                if cbody["is_glob"]:
                    globbed += self.glob_bindings(crate, cbody, stack)
                else:
                    explicit.append((cbody["name"],) + self.resolve(crate, cbody))
            else:
                explicit.append((child["name"], item_kind(child), ("item", crate, str(child_id))))
        taken = {(name, namespace(kind)) for name, kind, _ in explicit}
        out = list(explicit)
        for name, kind, target in globbed:
            if (name, namespace(kind)) not in taken:
                taken.add((name, namespace(kind)))
                out.append((name, kind, target))
        return out

    def resolve(self, crate, use):
        """(kind, target) of a non-glob `use`."""
        target = use["id"]
        if target is None:
            raise Shape(f"`pub use {use['source']}` in {crate.name} names no item (primitive?)")
        if str(target) in crate.index:
            return item_kind(crate.item(target)), ("item", crate, str(target))
        summary = crate.paths.get(str(target))
        if summary is None:
            raise Shape(f"`pub use {use['source']}` in {crate.name}: id {target} neither in index nor paths")
        keys(summary, "path summary", ["crate_id", "path", "kind"])
        kind = SUMMARY_KINDS.get(summary["kind"])
        if kind is None:
            fail("path summary kind", summary)
        return kind, ("summary", crate, str(target))

    def glob_bindings(self, crate, use, stack):
        target = use["id"]
        if target is None:
            raise Shape(f"`pub use {use['source']}::*` in {crate.name} names no item")
        if str(target) in crate.index:
            it = crate.item(target)
            tag, body = inner(it)
            if tag == "module":
                return self.module_bindings(crate, target, stack)
            if tag == "enum":
                return [(crate.item(v)["name"], "variant", ("item", crate, str(v))) for v in body["variants"]]
            fail("glob re-export of", it)
        summary = crate.paths.get(str(target))
        if summary is None:
            raise Shape(f"`pub use {use['source']}::*` in {crate.name}: id {target} neither in index nor paths")
        other_name = crate.crate_name(summary["crate_id"])
        if summary["kind"] != "module":
            raise Shape(f"`pub use {use['source']}::*` in {crate.name}: a glob of a {summary['kind']} of another crate")
        if not os.path.exists(os.path.join(self.doc_dir, other_name + ".json")):
            raise Shape(
                f"`pub use {use['source']}::*` in {crate.name} re-exports a module of {other_name}, "
                f"and there is no {other_name}.json to enumerate it"
            )
        other = self.crate(other_name)
        module_id = self.find_module(other, summary["path"])
        return self.module_bindings(other, module_id, stack)

    def find_module(self, crate, path):
        """The id of the module at a path (as `paths` gives it) in another crate's JSON."""
        if path[0] != crate.name:
            raise Shape(f"module path {'::'.join(path)} is not in crate {crate.name}")
        module_id = crate.root
        for segment in path[1:]:
            body = inner(crate.item(module_id))[1]
            found = [c for c in body["items"] if crate.item(c)["name"] == segment and inner(crate.item(c))[0] == "module"]
            if len(found) != 1:
                raise Shape(f"no module {'::'.join(path)} in {crate.name}.json")
            module_id = str(found[0])
        return module_id

    # -- items ----------------------------------------------------------------------------

    def walk(self, path, kind, target, stack):
        where, crate, id_ = target
        if crate is not self.home or where == "summary":
            self.foreign(path, kind, crate, id_, where)
            return
        it = crate.item(id_)
        tag, body = inner(it)
        if tag == "module":
            self.emit(path, "mod")
            if (crate.name, id_) in stack:
                raise Shape(f"module {'::'.join(path)} re-exports itself")
            for name, ckind, ctarget in self.module_bindings(crate, id_, set()):
                self.walk(path + [name], ckind, ctarget, stack | {(crate.name, id_)})
        elif tag in ("struct", "union"):
            self.struct(path, tag, it, body)
        elif tag == "enum":
            self.enum(path, it, body)
        elif tag == "trait":
            self.trait(path, it, body)
        elif tag == "function":
            self.emit(path, render_function(body))
        elif tag == "type_alias":
            keys(body, "type alias", ["type", "generics"])
            params, where_ = render_generics(body["generics"])
            self.emit(path, f"type{params} = {render_type(body['type'])}{where_}")
        elif tag == "constant":
            keys(body, "constant item", ["type", "const"])
            self.emit(path, f"const: {render_type(body['type'])}")
        elif tag == "static":
            keys(body, "static", ["type", "is_mutable", "is_unsafe", "expr"])
            self.emit(path, f"static{' mut' if body['is_mutable'] else ''}: {render_type(body['type'])}")
        elif tag == "macro":
            self.emit(path, "macro")
        elif tag == "variant":
            self.emit(path, "variant")
        elif tag == "proc_macro":
            self.emit(path, item_kind(it))
        elif tag == "extern_crate":
            keys(body, "extern crate", ["name", "rename"])
            self.emit(path, f"(crate {body['name']})")
        elif tag == "trait_alias":
            keys(body, "trait alias", ["generics", "params"])
            params, where_ = render_generics(body["generics"])
            self.emit(path, f"trait alias{params} = {render_bounds(body['params'])}{where_}")
        else:
            fail(f"item at {'::'.join(path)}", it)

    def foreign(self, path, kind, crate, id_, where):
        """An item of another crate: one line, the crate it comes from."""
        if where == "item":
            # Found through another crate's JSON (a glob of it): that crate's own item.
            it = crate.item(id_)
            if inner(it)[0] == "module" and inner(it)[1]["is_crate"]:
                self.emit(path, f"(crate {crate.name})")
            else:
                self.emit(path, f"{kind} (from {crate.name})")
            return
        summary = crate.paths[id_]
        origin = crate.crate_name(summary["crate_id"])
        if summary["kind"] == "module" and len(summary["path"]) == 1:
            self.emit(path, f"(crate {origin})")
        else:
            self.emit(path, f"{kind} (from {origin})")

    def flags(self, it, body):
        out = ""
        params, where = render_generics(body["generics"])
        out += params + where
        if non_exhaustive(it):
            out += " #[non_exhaustive]"
        return out

    def fields(self, path, ids, stripped):
        """Named or tuple fields (an id of None is a private tuple field)."""
        for position, field_id in enumerate(ids):
            if field_id is None:
                continue
            field = self.home.item(field_id)
            tag, ty = inner(field)
            if tag != "struct_field":
                fail("field", field)
            self.emit(path + [field["name"]], f"field: {render_type(ty)}")
        return stripped or None in ids

    def struct(self, path, tag, it, body):
        if tag == "union":
            keys(body, "union", ["generics", "has_stripped_fields", "fields", "impls"])
            private = self.fields(path, body["fields"], body["has_stripped_fields"])
            self.emit(path, "union" + self.flags(it, body) + (" (private fields)" if private else ""))
        else:
            keys(body, "struct", ["kind", "generics", "impls"])
            ktag, kbody = tagged(body["kind"], "struct kind", {"unit", "tuple", "plain"})
            private = False
            shape = ""
            if ktag == "tuple":
                private = self.fields(path, kbody, False)
                shape = "(..)"
            elif ktag == "plain":
                keys(kbody, "plain struct", ["fields", "has_stripped_fields"])
                private = self.fields(path, kbody["fields"], kbody["has_stripped_fields"])
                shape = " {..}"
            self.emit(path, "struct" + self.flags(it, body) + shape + (" (private fields)" if private else ""))
        self.impls(path, body["impls"])

    def enum(self, path, it, body):
        keys(body, "enum", ["generics", "has_stripped_variants", "variants", "impls"])
        self.emit(path, "enum" + self.flags(it, body) + (" (private variants)" if body["has_stripped_variants"] else ""))
        for variant_id in body["variants"]:
            variant = self.home.item(variant_id)
            vtag, vbody = inner(variant)
            if vtag != "variant":
                fail("variant", variant)
            keys(vbody, "variant", ["kind", "discriminant"])
            vpath = path + [variant["name"]]
            ktag, kbody = tagged(vbody["kind"], "variant kind", {"plain", "tuple", "struct"})
            flag = " #[non_exhaustive]" if non_exhaustive(variant) else ""
            if ktag == "plain":
                disc = ""
                if vbody["discriminant"] is not None:
                    keys(vbody["discriminant"], "discriminant", ["expr", "value"])
                    disc = f" = {vbody['discriminant']['value']}"
                self.emit(vpath, f"variant{flag}{disc}")
            elif ktag == "tuple":
                types = []
                for field_id in kbody:
                    if field_id is None:
                        types.append("_")
                        continue
                    field = self.home.item(field_id)
                    ftag, ty = inner(field)
                    if ftag != "struct_field":
                        fail("variant field", field)
                    types.append(render_type(ty))
                self.emit(vpath, f"variant({', '.join(types)}){flag}")
            else:
                keys(kbody, "struct variant", ["fields", "has_stripped_fields"])
                private = self.fields(vpath, kbody["fields"], kbody["has_stripped_fields"])
                self.emit(vpath, f"variant {{..}}{flag}" + (" (private fields)" if private else ""))
        self.impls(path, body["impls"])

    def impls(self, path, impl_ids):
        for impl_id in impl_ids:
            impl = self.home.item(impl_id)
            tag, body = inner(impl)
            if tag != "impl":
                fail("impl", impl)
            keys(body, "impl", ["is_unsafe", "generics", "provided_trait_methods", "trait", "for", "items",
                                "is_negative", "is_synthetic", "blanket_impl"])
            if body["blanket_impl"] is not None:
                continue
            # The auto traits rustdoc works out: the stable ones are API (a type that stops
            # being Send breaks its users), the unstable ones (Freeze, …) are not.
            if body["is_synthetic"] and short(body["trait"]["path"]) not in STABLE_AUTO_TRAITS:
                continue
            if body["trait"] is None:
                for item_id in body["items"]:
                    item = self.home.item(item_id)
                    if item["visibility"] == "public":
                        self.assoc(path + [item["name"]], item, trait_item=False)
                continue
            params, where = render_generics(body["generics"])
            for_ = render_type(body["for"])
            # `for` only when it says more than the path does (`Wrapper<String>`).
            for_ = "" if for_ == path[-1] else f" for {for_}"
            self.emit(
                path,
                f"impl{params} {'unsafe ' if body['is_unsafe'] else ''}{'!' if body['is_negative'] else ''}"
                f"{render_path(body['trait'])}{for_}{where}",
            )

    def assoc(self, path, item, trait_item):
        tag, body = inner(item)
        if tag == "function":
            provided = " (provided)" if trait_item and body.get("has_body") else ""
            self.emit(path, render_function(body) + provided)
        elif tag == "assoc_const":
            keys(body, "associated const", ["type", "value"])
            default = " (provided)" if trait_item and body["value"] is not None else ""
            self.emit(path, f"const: {render_type(body['type'])}{default}")
        elif tag == "assoc_type":
            keys(body, "associated type", ["generics", "bounds", "type"])
            params, where = render_generics(body["generics"])
            text = f"type{params}"
            if body["bounds"]:
                text += ": " + render_bounds(body["bounds"])
            if body["type"] is not None:
                text += " = " + render_type(body["type"])
            self.emit(path, text + where)
        else:
            fail(f"associated item at {'::'.join(path)}", item)

    def trait(self, path, it, body):
        keys(body, "trait", ["is_auto", "is_unsafe", "is_dyn_compatible", "items", "generics", "bounds",
                             "implementations"])
        text = ("auto " if body["is_auto"] else "") + ("unsafe " if body["is_unsafe"] else "") + "trait"
        params, where = render_generics(body["generics"])
        text += params
        if body["bounds"]:
            text += ": " + render_bounds(body["bounds"])
        text += where
        if not body["is_dyn_compatible"]:
            text += " (not dyn-compatible)"
        self.emit(path, text)
        for item_id in body["items"]:
            item = self.home.item(item_id)
            self.assoc(path + [item["name"]], item, trait_item=True)
        # Its impls for types not of this crate (those of this crate's types are listed
        # under the type).
        for impl_id in body["implementations"]:
            impl = self.home.item(impl_id)
            ibody = inner(impl)[1]
            for_ = ibody["for"]
            if isinstance(for_, dict) and "resolved_path" in for_ and str(for_["resolved_path"]["id"]) in self.home.index:
                continue
            iparams, iwhere = render_generics(ibody["generics"])
            self.emit(path, f"impl{iparams} for {render_type(for_)}{iwhere}")

    def run(self):
        root = self.home.item(self.home.root)
        self.emit([root["name"]], "(crate root)")
        for name, kind, target in self.module_bindings(self.home, self.home.root, set()):
            self.walk([root["name"], name], kind, target, {(self.home.name, self.home.root)})
        # By path, an item before the impls listed under it.
        return [f"{path} {text}" for path, _, text in sorted(self.lines)]


def published_crates():
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--no-deps", "--format-version", "1"], check=True, capture_output=True, text=True
        ).stdout
    )
    members = set(meta["workspace_members"])
    rows = []
    for package in meta["packages"]:
        if package["id"] not in members or package.get("publish") == []:
            continue
        for target in package["targets"]:
            if {"lib", "rlib", "proc-macro"} & set(target["kind"]):
                rows.append(f"{package['name']} {target['name'].replace('-', '_')}")
    return sorted(rows)


def main(argv):
    if argv[1:2] == ["crates"] and len(argv) == 2:
        print("\n".join(published_crates()))
        return 0
    if argv[1:2] == ["list"] and len(argv) == 4:
        try:
            lines = Listing(argv[2], argv[3]).run()
        except Shape as e:
            print(f"api_listing.py: {argv[3]}: {e}", file=sys.stderr)
            return 2
        sys.stdout.write("".join(line + "\n" for line in lines))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
