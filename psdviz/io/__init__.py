"""I/O: reading bundled samples and geographic reference files (TopoJSON). May import psdviz.core,
splits, inference, query and publish; never methods, lab or ui."""
