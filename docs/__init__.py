"""The rules reference (rules.md); a package only so that installs ship it (``lastbreath rule``)."""
