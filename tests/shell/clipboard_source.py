"""Holds TEXT on the X clipboard until killed, for the e2e tests to paste into a native
dialog: a path typed key by key races the file chooser's completion, which inserts text
between the keystrokes; a paste lands whole.

    /usr/bin/python3 tests/shell/clipboard_source.py TEXT

Prints "ready" once it owns the clipboard.
"""

import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

clipboard = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
clipboard.set_text(sys.argv[1], -1)
print("ready", flush=True)
Gtk.main()
