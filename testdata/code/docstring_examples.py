"""Helpers for rule expressions.

Example: block when cf.threat_score gt 10 on GET /zones/{zone_id}/firewall/rules.
"""
import requests


def beautify(expression):
    """Break an expression over lines.

    >>> beautify("(cf.client.bot) or (cf.threat_score ge 1)")
    (cf.client.bot) or
    (cf.threat_score ge 1)
    """
    return expression.replace(" or ", " or\n")


# A string used by the code is still read.
CHALLENGE = "(cf.threat_score gt 14)"  # want: threat-score-field
