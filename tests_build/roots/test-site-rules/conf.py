extensions = ["sphinx_design", "sphinxcontrib.katex", "languages", "page_rules"]
katex_prerender = True  # the site's math: KaTeX's HTML, its TeX annotated
html_theme, html_search_language = "pydata_sphinx_theme", "en"
gettext_auto_build = False  # the site's interface catalog, sphinx.po (locale_dirs: the test's)


def setup(app):  # sphinx-gallery's image node, as on the site; KaTeX's server started as there
    from sphinx_gallery.directives import ImageSg, imagesg_addnode
    from sphinxcontrib.katex import KaTeXServer

    KaTeXServer.start_server_process = KaTeXServer.start_network_socket  # docs/conf.py: why
    app.add_directive("image-sg", ImageSg)
    imagesg_addnode(app)
