"""Questions that answer back: a few choices, each with its own explanation.

A page ends with questions written in MyST::

    ::::{question}
    The queries are `(2, 3, 10, 16)` and the keys `(2, 3, 6, 16)`. With `block_size=4`,
    what shape are the scores of one block?

    :::{choice} `(2, 3, 10, 4)`
    :correct:
    One row per query, one column per key of the block.
    :::

    :::{choice} `(2, 3, 10, 6)`
    That is the whole matrix of scores, which the loop never creates.
    :::
    ::::

Each choice becomes a ``<details>`` element: its summary is the choice; opening it (a click,
a tap, or Enter or Space on the focused choice) shows whether it is right and why. Nothing
is revealed before the reader chooses. It needs no script and nothing from the network, it
follows the theme's light and dark colours and the page's width, and the keyboard reaches
every choice. The choices of one question share a ``name``, so opening one closes the others.

The question, the choices and the explanations are paragraphs of the page's catalog; the
verdicts ("Right." / "Not this one.") are interface strings from Sphinx's catalog
(``locale/<language>/LC_MESSAGES/sphinx.po``). A question with fewer than two choices, with
not exactly one right choice, or with a choice that does not say why, is a build error that
names the page and line. ``tutorial_notebooks`` writes the same questions into the
downloaded notebooks, each answer folded (:func:`markdown`).
"""

from __future__ import annotations

import re
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

RIGHT, WRONG = "Right.", "Not this one."
LETTERS = "ABCDEF"


class question(nodes.General, nodes.Element):
    """A question: its text, then its choices."""


class choice(nodes.General, nodes.Element):
    """One choice: a ``choice_label``, then the explanation; ``correct`` is True or False."""


class choice_label(nodes.TextElement):
    """The text of a choice, shown before the reader opens it (translatable like a paragraph)."""


class QuestionDirective(SphinxDirective):
    has_content = True

    def run(self) -> list[nodes.Node]:
        node = question()
        node.source, node.line = self.get_source_info()
        self.env.temp_data["mha_question"] = True  # the choices parsed now belong to it
        try:
            self.state.nested_parse(self.content, self.content_offset, node)
        finally:
            del self.env.temp_data["mha_question"]
        choices = [child for child in node.children if isinstance(child, choice)]
        right = sum(c["correct"] for c in choices)
        text = node.index(choices[0]) if choices else 0  # the nodes before the first choice
        if text == 0 or len(node.children) - text != len(choices):
            raise self.error(
                "expected the question's text, then its {choice} blocks and nothing after them"
            )
        if not 2 <= len(choices) <= len(LETTERS) or right != 1:
            raise self.error(
                f"expected 2 to {len(LETTERS)} choices, exactly one of them :correct:, got "
                f"{len(choices)} choices and {right} marked :correct:"
            )
        name = f"{self.env.docname.replace('/', '-')}-q{self.env.new_serialno('question')}"
        for letter, each in zip(LETTERS, choices, strict=False):
            each["letter"], each["question"] = letter, name
        return [node]


class ChoiceDirective(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec: ClassVar[dict] = {"correct": directives.flag}

    def run(self) -> list[nodes.Node]:
        if not self.env.temp_data.get("mha_question"):
            raise self.error("expected {choice} inside a {question}")
        if not self.content:
            raise self.error(
                f"expected the choice {self.arguments[0]!r} to say why it is right or wrong, "
                f"got no text: write the explanation under it"
            )
        node = choice(correct="correct" in self.options)
        node.source, node.line = self.get_source_info()
        text, messages = self.state.inline_text(self.arguments[0], self.lineno)
        label = choice_label(self.arguments[0], "", *text)
        label.source, label.line = node.source, node.line
        node += label
        node += messages
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def visit_question(self, node: question) -> None:
    self.body.append(self.starttag(node, "div", CLASS="mha-question"))


def depart_question(self, node: question) -> None:
    self.body.append("</div>\n")


def visit_choice(self, node: choice) -> None:
    verdict = "right" if node["correct"] else "wrong"
    self.body.append(
        self.starttag(node, "details", CLASS=f"mha-choice mha-{verdict}", name=node["question"])
    )
    self.body.append(f'<summary><span class="mha-letter">{node["letter"]}</span> ')


def depart_choice(self, node: choice) -> None:
    self.body.append("</div></details>\n")


def visit_choice_label(self, node: choice_label) -> None:
    self.body.append('<span class="mha-choice-text">')


def depart_choice_label(self, node: choice_label) -> None:
    verdict = _(RIGHT) if node.parent["correct"] else _(WRONG)
    self.body.append(
        f'</span></summary><div class="mha-answer"><p class="mha-verdict">'
        f"<strong>{self.encode(verdict)}</strong></p>"
    )


def markdown(text: str) -> str:
    """The ``{question}`` blocks of a MyST text as Markdown that Jupyter shows: the question,
    then each choice as a folded ``<details>`` with its verdict and explanation."""
    block = re.compile(
        r"^(?P<fence>:{4,})\{question\}[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$",
        re.MULTILINE | re.DOTALL,
    )
    choice_re = re.compile(
        r"^(?P<fence>:{3})\{choice\}[ \t]*(?P<label>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
        re.MULTILINE | re.DOTALL,
    )

    def one(match: re.Match) -> str:
        body = match["body"]
        first = choice_re.search(body)
        parts = [body[: first.start()].strip() if first else body.strip()]
        for letter, found in zip(LETTERS, choice_re.finditer(body), strict=False):
            lines = found["body"].strip().splitlines()
            correct = bool(lines) and lines[0].strip() == ":correct:"
            explanation = "\n".join(lines[1:] if correct else lines).strip()
            verdict = _(RIGHT) if correct else _(WRONG)  # the page's language, as on the page
            label = re.sub(r"`([^`]+)`", r"<code>\1</code>", found["label"].strip())  # in HTML
            parts.append(
                f"<details><summary>{letter}. {label}</summary>\n\n"
                f"**{verdict}** {explanation}\n\n</details>"
            )
        return "\n\n".join(parts)

    return block.sub(one, text)


def setup(app):
    app.add_node(question, html=(visit_question, depart_question))
    app.add_node(choice, html=(visit_choice, depart_choice))
    app.add_node(choice_label, html=(visit_choice_label, depart_choice_label))
    app.add_directive("question", QuestionDirective)
    app.add_directive("choice", ChoiceDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
