extensions = ["myst_parser", "questions"]
myst_enable_extensions = ["colon_fence"]
locale_dirs = ["locale/"]
html_search_language = "en"
