"""Questions that answer back: ``::::{question}`` holds the question's text, then 2 to 6
``:::{choice} text`` blocks, one ``:correct:``, each saying why. Each choice is a ``<details>``
(no script) showing its verdict (from ``sphinx.po``) and why once opened, nothing before; one
open per question. :func:`markdown` writes them into the notebooks, each answer folded."""

from __future__ import annotations

import re
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

RIGHT, WRONG, LETTERS = "Right.", "Not this one.", "ABCDEF"  # the verdicts: in sphinx.po
question = type("question", (nodes.General, nodes.Element), {})  # its text, then its choices
choice = type("choice", (nodes.General, nodes.Element), {})  # its label, then why
choice_label = type("choice_label", (nodes.TextElement,), {})  # translatable like a paragraph
QUESTION = re.compile(r"^(:{4,})\{question\}[^\n]*\n(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)
CHOICE = re.compile(r"^:{3}\{choice\}[ \t]*([^\n]*)\n(.*?)^:{3}[ \t]*$", re.MULTILINE | re.DOTALL)


class QuestionDirective(SphinxDirective):
    has_content = True

    def run(self) -> list[nodes.Node]:
        node = question()
        self.set_source_info(node)
        self.env.temp_data["mha_question"] = True  # the choices parsed now belong to it
        self.state.nested_parse(self.content, self.content_offset, node)
        del self.env.temp_data["mha_question"]
        choices = [child for child in node.children if isinstance(child, choice)]
        right, text = sum(c["correct"] for c in choices), len(node) - len(choices)
        if not (text and node[text:] == choices and 2 <= len(choices) <= 6 and right == 1):
            raise self.error(f"expected the question's text, then 2 to 6 choices, one :correct:; "
                             f"got {text} nodes, {len(choices)} choices, {right} :correct:")  # fmt: skip
        name = f"{self.env.docname.replace('/', '-')}-q{self.env.new_serialno('question')}"
        for letter, each in zip(LETTERS, choices, strict=False):
            each["letter"], each["question"] = letter, name
        return [node]


class ChoiceDirective(SphinxDirective):
    required_arguments, final_argument_whitespace, has_content = 1, True, True
    option_spec: ClassVar[dict] = {"correct": directives.flag}

    def run(self) -> list[nodes.Node]:
        if not (self.env.temp_data.get("mha_question") and self.content):
            raise self.error("expected a {choice} inside a {question}, with text that says why")
        node = choice(correct="correct" in self.options)
        text, messages = self.state.inline_text(self.arguments[0], self.lineno)
        node += [choice_label(self.arguments[0], "", *text), *messages]
        node.source, node.line = node[0].source, node[0].line = self.get_source_info()
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def html_start(self, node: nodes.Element) -> None:
    if isinstance(node, question):
        self.body.append(self.starttag(node, "div", CLASS="mha-question"))
    elif isinstance(node, choice):
        classes = f"mha-choice mha-{'right' if node['correct'] else 'wrong'}"
        self.body += [self.starttag(node, "details", CLASS=classes, name=node["question"]),
                      f'<summary><span class="mha-letter">{node["letter"]}</span> ']  # fmt: skip
    else:
        self.body.append('<span class="mha-choice-text">')


def html_end(self, node: nodes.Element) -> None:
    if isinstance(node, choice_label):  # then the verdict, in the page's language
        verdict = self.encode(_(RIGHT) if node.parent["correct"] else _(WRONG))
        self.body.append('</span></summary><div class="mha-answer"><p class="mha-verdict">'
                         f"<strong>{verdict}</strong></p>")  # fmt: skip
    else:
        self.body.append("</div>\n" if isinstance(node, question) else "</div></details>\n")


def folded(title: str, body: str) -> str:
    """A dropdown as Jupyter shows it folded (a ``<summary>`` reads HTML, not Markdown)."""
    title = re.sub(r"`([^`]+)`", r"<code>\1</code>", title)
    return f"<details><summary>{title}</summary>\n\n{body}\n\n</details>"


def markdown(text: str) -> str:
    """The ``{question}`` blocks of a MyST text in Markdown: each choice a folded ``<details>``."""

    def written(match: re.Match) -> str:
        parts = [CHOICE.split(match[2], maxsplit=1)[0].strip()]
        for letter, (label, body) in zip(LETTERS, CHOICE.findall(match[2]), strict=False):
            why = body.strip().removeprefix(":correct:")  # the verdict in the page's language
            verdict = _(WRONG) if why == body.strip() else _(RIGHT)
            parts.append(folded(f"{letter}. {label.strip()}", f"**{verdict}** {why.strip()}"))
        return "\n\n".join(parts)

    return QUESTION.sub(written, text)


def setup(app):
    for node in (question, choice, choice_label):
        app.add_node(node, html=(html_start, html_end))
    app.add_directive("question", QuestionDirective)
    app.add_directive("choice", ChoiceDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
