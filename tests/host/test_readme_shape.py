# The README is a user guide a person reads through: short, in the sections a
# new user and a technician look for, with the rest a link away in docs/.
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
HEADINGS = [line.lstrip("#").strip() for line in README.splitlines() if line.startswith("#")]
MOST_LINES = 260
SECTIONS = ("The two commands", "A first session in `make sim`",
            "A technician's session at the console", "Boards, and how to flash them",
            "Troubleshooting", "Libraries, and why")
# What a troubleshooting section must cover, by the words a reader would look for.
TROUBLES = ("rig does not answer", "busy port", "unset clock", "at the REPL")
DOCS = ("uthctl.md", "host-link.md", "testing.md", "benchmarks.md", "heap.md", "boards.md",
        "rules.md", "compliance.md", "floor.md", "floor-setup.md", "floor-page.md",
        "floor-design.md")


def section(title):
    start = README.index("## " + title)
    end = README.find("\n## ", start + 1)
    return README[start:end if end != -1 else None]


def test_the_readme_is_short():
    assert len(README.splitlines()) <= MOST_LINES


def test_the_readme_has_its_sections():
    assert [title for title in SECTIONS if title not in HEADINGS] == []


def test_the_two_commands_come_first():
    commands = section("The two commands")
    assert "make sim" in commands and "make test" in commands
    assert HEADINGS.index("The two commands") == 1  # right after the title


def test_the_first_session_is_numbered():
    steps = re.findall(r"^(\d+)\. ", section("A first session in `make sim`"), re.M)
    assert [int(step) for step in steps] == list(range(1, len(steps) + 1))
    assert len(steps) >= 5


def test_the_technicians_session_shows_commands_with_their_output():
    session = section("A technician's session at the console")
    typed = re.findall(r"^\$ uthctl (\w+)", session, re.M)
    for command in ("sim", "status", "rig", "config", "set", "log", "audit", "monitor"):
        assert command in typed
    assert "AUDIT PASSED" in session and "changed: A1 in force" in session


def test_troubleshooting_covers_the_usual_troubles():
    text = section("Troubleshooting")
    assert [trouble for trouble in TROUBLES if trouble not in text] == []


def test_the_readme_links_every_reference_doc_and_each_exists():
    for name in DOCS:
        assert "(docs/%s)" % name in README, name
        assert (ROOT / "docs" / name).is_file(), name


def test_every_relative_link_in_the_readme_and_docs_reaches_a_file():
    # [text](path) and ![alt](path) to a file of the project, with any #anchor off.
    broken = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
            path = target.split("#", 1)[0]
            if path and "://" not in path and not path.startswith("mailto:") \
                    and not (doc.parent / path).exists():
                broken.append("%s: %s" % (doc.relative_to(ROOT), target))
    assert broken == []
