extensions = ["myst_parser", "json_directives"]
locale_dirs = ["locale/"]
gettext_compact = False
html_search_language = "en"  # no jieba here
