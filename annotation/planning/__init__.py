"""Planning a job before anything is paid: bundling items into units, the worst-case cost, and
checking amounts of money typed in. Pure: no Django, no database, no market.
"""
