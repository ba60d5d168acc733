# Schemathesis hooks of scripts/fuzz.sh (docs/api.md -> An exact contract).
#
# `server_checks_only`: where the document declares `x-server-checks` (inputs the server checks
# beyond their schemas: a schedule that must parse, a secret that must exist, ...), fuzz.sh lets
# `positive_data_acceptance` accept a 400. This check keeps that allowance exact: a schema-valid
# request refused with 400 must name only inputs the operation declares (or inputs inside them).
import re

import schemathesis


def _covered(field: str, declared: list[str]) -> bool:
    # `job_ids.3` is an element of `job_ids`; declared array elements read `tags[]`.
    path = re.sub(r"\.(\d+)(?=\.|$)", "[]", field)
    for prefix in declared:
        if path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "["):
            return True
        if prefix.endswith("[]") and (path == prefix[:-2] or path.startswith(prefix[:-2] + ".")):
            return True
    return False


@schemathesis.check
def server_checks_only(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    declared = list((case.operation.definition.raw or {}).get("x-server-checks", {}).keys())
    if not declared:
        return None  # positive_data_acceptance reports it
    try:
        fields = (response.json().get("error") or {}).get("fields") or {}
    except Exception:
        fields = {}
    undeclared = [field for field in fields if not _covered(field, declared)]
    if not fields or undeclared:
        raise AssertionError(
            f"A schema-valid request was refused naming {undeclared or 'no input'}; "
            f"this operation declares only {declared} in x-server-checks"
        )
    return None
