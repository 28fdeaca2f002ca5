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


def surprises(report):
    """The Whys of what ran without error but surprises (a .grad read on a non-leaf, two leaves
    whose .grad share memory...), found once."""
    if not report.may_surprise():
        return []
    from .why import surprises as found
    return found(report)
