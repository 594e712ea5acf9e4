"""The market interface: what every market implements (`base`), how one is found (`registry`) and how
its client is chosen in settings (`clients`), the errors markets raise, and their pages. It sits below the
ledger and the market folders (`annotation/markets/<market>/`), which both import it."""
