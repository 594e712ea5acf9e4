"""The openai_compatible backend's transport: one chat-completions call per item, through the `openai`
client library, which lives in this module only.

Behaviour of the API this relies on (https://platform.openai.com/docs/api-reference/chat/create):
the reply's ``choices[0].message.content`` holds the text, ``message.refusal`` is set instead when the
model refuses, ``usage.total_tokens`` counts what is billed; an error status answers instead of a
completion: 429 refuses the request for its rate, 401 for its key, 400 for itself, 500 and 503 are the
server's failures to be retried later (https://platform.openai.com/docs/guides/error-codes). The
client's own retries are off: a retry of a call that may have been served is the caller's decision,
not the library's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import openai
from django.conf import settings

MAX_TOKENS = 16  # a label is a word or two; anything longer is not an answer


class ChatLostError(RuntimeError):
    """No reply: a timeout or a dropped connection. The call may have been served and charged."""


class ChatRefusedError(RuntimeError):
    """The server answered with an error status: it served no completion. `status` says whose fault:
    the request's own (`request_at_fault`: this prompt will never be served), or the key's, the model's,
    the rate's or the server's (every call would meet it, until that is put right)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status

    @property
    def request_at_fault(self) -> bool:
        return self.status in (400, 413, 422)  # a bad request, too large, or unprocessable


@dataclass(frozen=True)
class ChatReply:
    text: str  # the content, or the refusal
    refused: bool
    tokens: int


@dataclass(frozen=True)
class ChatEndpoint:
    base_url: str
    model: str
    api_key: str
    timeout: float

    @classmethod
    def from_settings(cls) -> ChatEndpoint:
        return cls(
            settings.MACHINE_CHAT_BASE_URL,
            settings.MACHINE_CHAT_MODEL,
            settings.MACHINE_CHAT_API_KEY or "none",  # local servers take any key; the client needs one
            float(settings.MACHINE_CHAT_TIMEOUT),
        )


def worst_case_cost(prompt: str, price_per_1k_tokens: Decimal) -> Decimal:
    """An upper bound on one call's cost: every byte of the prompt a token, plus the longest reply
    allowed. A byte, not a character: byte-level tokenizers (GPT's, Llama's, Qwen's) give a token at
    least a byte, but may give a character outside ASCII (up to four bytes in UTF-8) several tokens."""
    return (len(prompt.encode("utf-8")) + MAX_TOKENS) * price_per_1k_tokens / 1000


def parse_label(reply: ChatReply, labels: Sequence[str]) -> str:
    """The label the reply gives, or "" when it gives none: a refusal, or text that is not exactly one
    of ``labels`` (spaces around it aside). Nothing is coerced: "SUPPORT, mostly" is no answer."""
    text = reply.text.strip()
    return text if not reply.refused and text in labels else ""


def ask(endpoint: ChatEndpoint, prompt: str, temperature: float) -> ChatReply:
    """One call; a lost reply raises ChatLostError, an error status (a 429 among them) ChatRefusedError;
    any other failure propagates."""
    client = openai.OpenAI(
        base_url=endpoint.base_url, api_key=endpoint.api_key, timeout=endpoint.timeout, max_retries=0
    )
    try:
        completion = client.chat.completions.create(
            model=endpoint.model,
            messages=[{"role": "user", "content": prompt}],
            temperature=temperature,
            max_tokens=MAX_TOKENS,
        )
    except openai.APIStatusError as error:
        raise ChatRefusedError(error.status_code, str(error)) from None
    except (openai.APITimeoutError, openai.APIConnectionError) as error:
        raise ChatLostError(str(error) or type(error).__name__) from None
    message = completion.choices[0].message
    tokens = completion.usage.total_tokens if completion.usage else len(prompt) + MAX_TOKENS
    if message.refusal:
        return ChatReply(message.refusal, True, tokens)
    return ChatReply(message.content or "", False, tokens)
