#!/usr/bin/env python3
"""A GTK window that offers one file for drag and drop, so the e2e test can drop a real
file on the Ragnosis window the way a file manager does (XDND with a text/uri-list).

Usage: drag_source.py FILE X Y
Opens a small undecorated window at (X, Y) labelled "drag me" that offers FILE as a
file:// URI, prints "ready" once it is on screen, and exits when the drag ends (or
after 60 s). The test then moves the pointer with xdotool: press on this window, move
onto the app, release.
"""

import pathlib
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402


def main() -> None:
    path = pathlib.Path(sys.argv[1]).resolve()
    x, y = int(sys.argv[2]), int(sys.argv[3])
    window = Gtk.Window(title="ragnosis-drag-source")
    window.set_decorated(False)
    window.set_default_size(160, 120)
    window.move(x, y)
    box = Gtk.EventBox()
    box.add(Gtk.Label(label="drag me"))
    window.add(box)
    box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
    box.drag_source_add_uri_targets()

    def give(_widget, _context, data, _info, _time):
        data.set_uris([path.as_uri()])

    box.connect("drag-data-get", give)
    box.connect("drag-end", lambda *_: GLib.timeout_add(500, Gtk.main_quit))
    window.connect("destroy", Gtk.main_quit)

    def announce():
        print("ready", flush=True)
        return False

    window.connect("map-event", lambda *_: GLib.timeout_add(300, announce))
    window.show_all()
    GLib.timeout_add_seconds(60, Gtk.main_quit)
    Gtk.main()


if __name__ == "__main__":
    main()
