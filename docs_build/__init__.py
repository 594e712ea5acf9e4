"""What `mkdocs build` generates from the code itself: the command reference, the API reference and the
list of guides, so those pages can never disagree with the code they describe."""
