"""Machine annotators (annotation/machines/chat.py): the chat completions server they ask."""

from config.env import env_int, env_str

# ── Machine annotators (annotation/machines/chat.py) ─────────────────────────────────────────────
# The openai_compatible backend speaks to any server of the chat completions API (vLLM, Ollama,
# llama.cpp's server, a hosted provider). Temperature, price and requests per minute are the
# annotator's own settings.
# MACHINE_CHAT_BASE_URL: the chat completions server. Default: unset.
MACHINE_CHAT_BASE_URL = env_str("MACHINE_CHAT_BASE_URL")
# MACHINE_CHAT_MODEL: the model asked. Default: unset.
MACHINE_CHAT_MODEL = env_str("MACHINE_CHAT_MODEL")
# MACHINE_CHAT_API_KEY: the server's key, read here only, never stored. Default: unset.
MACHINE_CHAT_API_KEY = env_str("MACHINE_CHAT_API_KEY")
# MACHINE_CHAT_TIMEOUT: seconds a chat request may take. Default: 30.
MACHINE_CHAT_TIMEOUT = env_int("MACHINE_CHAT_TIMEOUT", 30, minimum=1)
