"""Why an autograd error happened (why.py: one explanation per error, from the engine's records)
and which fixes work (fixes.py: each tried on a copy of the script)."""


def explained(error):
    """An error's Why (None when gradcli has none), with its fixes tried on copies of the script
    the first time it is asked (a view asks; a run that is never shown tries nothing)."""
    why = getattr(error, "explanation", None)
    if why is not None and error.trial is not None and not error.tried:
        from . import fixes
        from .why import fix_text
        error.tried = True
        fixes.try_fixes(why, error.trial)
        error.fix = fix_text(why.fixes)
    return why


def explained_caught(exc, report, interp, line, text):
    """The Why of an error the script caught (a failed backward the script went on after), with
    its fixes tried on copies: a fix works when the copy no longer fails that way and fails in no
    new way (the copy runs to its end either way, as the script did)."""
    from .why import explain_exception
    why = explain_exception(exc, interp, line, text)
    if why is not None and report.trial is not None:
        from collections import Counter
        from . import fixes
        failures = lambda r: Counter(ev.error for ev in r.items if getattr(ev, "failed", False) and ev.error)
        before = failures(report)
        this = (getattr(exc, "pytype", None) or type(exc).__name__, str(exc))

        def gone(r):
            after = failures(r)
            return after[this] < before[this] and all(after[k] <= before[k] for k in after)
        fixes.try_fixes(why, report.trial, goal=gone)
    return why


def surprises(report):
    """The Whys of what ran without error but surprises (a .grad read on a non-leaf, two leaves
    whose .grad share memory...), found once."""
    if not report.may_surprise():
        return []
    from .why import surprises as found
    return found(report)
