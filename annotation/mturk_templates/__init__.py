"""A researcher's own MTurk layout templates and batches: their rows (`models`) and admin pages (`admin`)."""
