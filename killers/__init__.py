"""Bundled content (.fg files); a package only so that installs ship it."""
