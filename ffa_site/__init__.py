# The site's URL converters (`<id:pk>`): registered with the settings, before any URL module.
from ffa_site import converters  # noqa: F401
