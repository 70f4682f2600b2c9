"""Every Streamlit session-state key the pages read or write, in one place (no bare strings in pages).

Widget keys that a page also reads from ``st.session_state`` are listed here too, so a rename cannot
split a widget from its reader.
"""
from __future__ import annotations

# shared between pages
SHARED_DATA = "psdviz_data"             # the data set loaded on the map page (also read by compare, sparse)
LAST_PARAMS = "psdviz_last_params"      # method -> the parameters its last release published (prefills)

# map page
MAP = "psd_map"                         # the map component
QUERY_RECT = "query_rect"               # the rectangle being answered
QUERY_TYPED = "query_typed"             # it was typed in, not drawn: the map clears its drawn rectangles
CLICKED = "clicked"                     # the last clicked cell
CLICK_SEEN = "seen|clicked"             # the last click the map reported (a reported click is taken up once)
COMPARISONS = "comparisons"             # the query history (private vs true answers)
NONCE = "nonce"                         # "draw new noise": bumped to rebuild with fresh randomness
BASEMAP = "basemap"                     # the chosen background layer
EPSILON_PLAN = "epsilon_plan"           # the "What epsilon do I need?" result
QUERY_DATA = "query_data"               # the data and domain the rectangle, click and history belong to
MAP_VIEWS = "psdviz_map_views"          # this session's map views (layers of its releases), kept for reruns
ANSWERS = "psdviz_answers"              # this session's answers to its rectangles, kept for reruns
OVERLAYS = "psdviz_overlays"            # the map's script of this session's kept rectangles, kept for reruns
SWAPPED = "psdviz_swapped"              # rows an upload would keep inside its domain with x and y exchanged

# teach
TEACH_MAP = "teach_map"                 # the linked maps
TEACH_RECT = "teach_rect"               # the rectangle answered by both releases
TEACH_REDRAWS = "teach_redraws"         # (rectangle, method, epsilon, Redraws) of "draw the noise again"
TEACH_DATA = "teach_data"               # the data and domain the rectangle and redraws belong to
TEACH_ERRORS_MAP = "teach_errors_map"

# open a release
RELEASE_MAP = "release_map"
RELEASE_QUERY = "release_query"
RELEASE_QUERIES = "release_queries"
RELEASE_DIGEST = "release_digest"       # the open file: a new one clears the old one's queries

# count of counts
COCO_MAP = "coco_map"
COCO_NODE = "coco_node"                 # the selected hierarchy node (a widget key too)
COCO_LAST_CLICK = "coco_last_click"

# compare
CMP_RUN = "cmp_run"
CMP_NONCE = "cmp_nonce"

# regions
REGIONS_MAP = "regions_map"
REGIONS_LAST_CLICK = "regions_last_click"
REGION = "rg_region"                    # the selected region id (a widget key too)
REGIONS_DRILL = "regions_drill"         # (level, region) to show next: set by "Drill down", read before the widgets
