"""The renters' filters on the catalogue: where an offering runs, how it is delivered, what of the
host comes with it and who may rent it (the list API's and the explorer's filters; the advisor
reads the same facts through advisor.services.rental_facts and ranking.renting_miss).

The country of an offering is its region's, else its platform's market's.

An offering's `region` is the code its platform names it by ("us-east-1", "eastus", "上海二A").
Where the platform publishes where each region is, the table below gives the country (ISO 3166-1
alpha-2, upper case); any other offering takes its platform's market (`Platform.region`) where the
market is one country ("cn": mainland China, CN). A global platform's offering whose region is
not in the table, or that names none, states no country: a filter on the country leaves it out
as "country not stated", never guesses.

Sources of the table, each the cloud's own list of regions and where they are:
- AWS: https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html
- Google Cloud: https://cloud.google.com/compute/docs/regions-zones
- Microsoft Azure: https://learn.microsoft.com/en-us/azure/reliability/regions-list
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.db.models import F, Q, QuerySet

from platforms.models import Offering, Platform

# Platform slug -> region code -> country.
COUNTRY_OF_REGION: dict[str, dict[str, str]] = {
    "aws": {
        "us-east-1": "US",  # N. Virginia
        "us-east-2": "US",  # Ohio
        "us-west-1": "US",  # N. California
        "us-west-2": "US",  # Oregon
        "ca-central-1": "CA",  # Canada (Central)
        "ap-northeast-1": "JP",  # Tokyo
        "ap-northeast-2": "KR",  # Seoul
        "ap-northeast-3": "JP",  # Osaka
        "ap-south-1": "IN",  # Mumbai
        "ap-south-2": "IN",  # Hyderabad
        "ap-southeast-1": "SG",  # Singapore
        "ap-southeast-2": "AU",  # Sydney
        "ap-southeast-3": "ID",  # Jakarta
        "ap-southeast-4": "AU",  # Melbourne
        "ap-east-1": "HK",  # Hong Kong
        "eu-central-1": "DE",  # Frankfurt
        "eu-central-2": "CH",  # Zurich
        "eu-north-1": "SE",  # Stockholm
        "eu-south-1": "IT",  # Milan
        "eu-south-2": "ES",  # Spain
        "eu-west-1": "IE",  # Ireland
        "eu-west-2": "GB",  # London
        "eu-west-3": "FR",  # Paris
        "sa-east-1": "BR",  # São Paulo
        "me-central-1": "AE",  # UAE
        "il-central-1": "IL",  # Tel Aviv
    },
    "gcp": {
        "us-central1": "US",  # Council Bluffs, Iowa
        "us-east1": "US",  # Moncks Corner, South Carolina
        "us-east4": "US",  # Ashburn, Virginia
        "us-east5": "US",  # Columbus, Ohio
        "us-south1": "US",  # Dallas, Texas
        "us-west1": "US",  # The Dalles, Oregon
        "us-west2": "US",  # Los Angeles
        "us-west3": "US",  # Salt Lake City
        "us-west4": "US",  # Las Vegas
        "northamerica-northeast1": "CA",  # Montréal
        "northamerica-northeast2": "CA",  # Toronto
        "southamerica-east1": "BR",  # Osasco, São Paulo
        "asia-east1": "TW",  # Changhua County, Taiwan
        "asia-east2": "HK",  # Hong Kong
        "asia-northeast1": "JP",  # Tokyo
        "asia-northeast2": "JP",  # Osaka
        "asia-northeast3": "KR",  # Seoul
        "asia-south1": "IN",  # Mumbai
        "asia-south2": "IN",  # Delhi
        "asia-southeast1": "SG",  # Jurong West, Singapore
        "asia-southeast2": "ID",  # Jakarta
        "australia-southeast1": "AU",  # Sydney
        "australia-southeast2": "AU",  # Melbourne
        "europe-north1": "FI",  # Hamina
        "europe-west1": "BE",  # St. Ghislain
        "europe-west2": "GB",  # London
        "europe-west3": "DE",  # Frankfurt
        "europe-west4": "NL",  # Eemshaven
        "europe-west6": "CH",  # Zurich
        "europe-west8": "IT",  # Milan
        "europe-west9": "FR",  # Paris
        "europe-west10": "DE",  # Berlin
        "europe-southwest1": "ES",  # Madrid
        "europe-central2": "PL",  # Warsaw
        "me-west1": "IL",  # Tel Aviv
        "me-central1": "QA",  # Doha
    },
    "azure": {
        "centralus": "US",  # Iowa
        "eastus": "US",  # Virginia
        "eastus2": "US",  # Virginia
        "northcentralus": "US",  # Illinois
        "southcentralus": "US",  # Texas
        "westcentralus": "US",  # Wyoming
        "westus": "US",  # California
        "westus2": "US",  # Washington
        "westus3": "US",  # Arizona
        "canadacentral": "CA",  # Toronto
        "canadaeast": "CA",  # Quebec City
        "brazilsouth": "BR",  # São Paulo State
        "northeurope": "IE",  # Ireland
        "westeurope": "NL",  # Netherlands
        "uksouth": "GB",  # London
        "ukwest": "GB",  # Cardiff
        "francecentral": "FR",  # Paris
        "germanywestcentral": "DE",  # Frankfurt
        "swedencentral": "SE",  # Gävle
        "switzerlandnorth": "CH",  # Zurich
        "norwayeast": "NO",  # Oslo
        "italynorth": "IT",  # Milan
        "polandcentral": "PL",  # Warsaw
        "japaneast": "JP",  # Tokyo, Saitama
        "japanwest": "JP",  # Osaka
        "koreacentral": "KR",  # Seoul
        "southeastasia": "SG",  # Singapore
        "eastasia": "HK",  # Hong Kong
        "australiaeast": "AU",  # New South Wales
        "centralindia": "IN",  # Pune
        "southindia": "IN",  # Chennai
        "uaenorth": "AE",  # Dubai
        "qatarcentral": "QA",  # Doha
        "southafricanorth": "ZA",  # Johannesburg
    },
}

# A platform's market (Platform.region) that is one country; "global" is none.
MARKET_COUNTRY: dict[str, str] = {"cn": "CN"}


def country_of(platform: str, market: str, region: str) -> str:
    """The offering's country (ISO 3166-1 alpha-2), or "" where nothing states it."""
    found = COUNTRY_OF_REGION.get(platform, {}).get(region.strip().lower())
    return found or MARKET_COUNTRY.get(market, "")


def countries_q(countries: Iterable[str]) -> Q:
    """The offerings whose country (`country_of`) is one of `countries`, as a filter on Offering
    (region codes compared as the catalogs write them, lower case)."""
    wanted = {c.upper() for c in countries}
    match = Q(pk__in=[])
    for platform, regions in COUNTRY_OF_REGION.items():
        named = [r for r, c in regions.items() if c in wanted]
        if named:
            match |= Q(platform__slug=platform, region__in=named)
    markets = [m for m, c in MARKET_COUNTRY.items() if c in wanted]
    if markets:
        tabled = Q(pk__in=[])
        for platform, regions in COUNTRY_OF_REGION.items():
            tabled |= Q(platform__slug=platform, region__in=list(regions))
        match |= Q(platform__region__in=markets) & ~tabled
    return match


def renting_filtered(queryset: QuerySet[Offering], query: dict[str, Any]) -> QuerySet[Offering]:
    """`queryset` narrowed by the renters' filters in `query` (country, region and delivery_form
    lists; min_vcpus_per_gpu, min_ram_gib_per_gpu, min_disk_gb_per_gpu; foreign_renter), as
    ranking.renting_miss reads them: an offering that does not state what a filter reads (no
    country, no vCPU count, no delivery form) is left out, never read as 0 or as a yes."""
    if query.get("country"):
        queryset = queryset.filter(countries_q(query["country"]))
    if query.get("region"):
        # Region codes compared case-blind, as the advisor compares them.
        wanted = Q(pk__in=[])
        for region in dict.fromkeys(r.strip() for r in query["region"]):
            wanted |= Q(region__iexact=region)
        queryset = queryset.filter(wanted)
    if query.get("delivery_form"):
        forms = list(dict.fromkeys(query["delivery_form"]))
        # A blank form is the platform's only one (advisor.services.rental_facts).
        only = [
            p.pk
            for p in Platform.objects.only("delivery_forms")
            if len(p.delivery_forms or []) == 1 and p.delivery_forms[0] in forms
        ]
        queryset = queryset.filter(
            Q(delivery_form__in=forms) | Q(delivery_form="", platform_id__in=only)
        )
    for key, column in PER_GPU.items():
        if query.get(key):
            # Stated and at least the minimum times the GPU count; null (not stated) never is.
            least = Decimal(str(query[key]))
            queryset = queryset.filter(**{f"{column}__gte": least * F("gpu_count")})
    if query.get("foreign_renter"):
        queryset = queryset.filter(
            platform__cn_identity_required=False, platform__foreign_cards=True
        )
    return queryset


# The per-GPU minimums and the Offering column each reads.
PER_GPU = {
    "min_vcpus_per_gpu": "vcpus",
    "min_ram_gib_per_gpu": "ram_gib",
    "min_disk_gb_per_gpu": "disk_gb",
}
