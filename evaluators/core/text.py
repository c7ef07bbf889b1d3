"""Model output as text: the answer apart from the reasoning some models write into their content."""

from __future__ import annotations

import re

# Reasoning blocks some models write into the content instead of `reasoning_content`.
THINK_TAGS: tuple[tuple[str, str], ...] = (("<think>", "</think>"), ("<thinking>", "</thinking>"))


def split_reasoning(text: str | None) -> tuple[str, str]:
    """(answer, reasoning) from content that may hold `<think>` blocks.

    A closed block is reasoning; an opening tag never closed means the budget ran out while
    thinking (all of it is reasoning); a closing tag with no opening (the template opened the
    block in the prompt) makes everything before it reasoning.
    """
    text = text or ""
    reasoning: list[str] = []
    for open_tag, close_tag in THINK_TAGS:
        if close_tag in text and open_tag not in text.split(close_tag, 1)[0]:
            head, text = text.split(close_tag, 1)
            reasoning.append(head)
        pattern = re.compile(re.escape(open_tag) + r"(.*?)" + re.escape(close_tag), re.S)
        reasoning.extend(m.group(1) for m in pattern.finditer(text))
        text = pattern.sub("", text)
        if open_tag in text:
            text, rest = text.split(open_tag, 1)
            reasoning.append(rest)
    return text.strip(), "\n".join(r.strip() for r in reasoning if r.strip())
