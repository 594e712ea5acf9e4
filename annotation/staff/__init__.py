"""Staff pages in Django's admin for the money ledger and the markets: the top room of annotation.

Their actions start background operations (no market call inside a web request); nothing below this
package imports it. `annotation.admin` imports these modules, which registers them.
"""
