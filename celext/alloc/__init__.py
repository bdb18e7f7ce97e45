"""The allocator explanation (`draguard explain`): devices and pools per node (`pools`), matchAttribute and
distinctAttribute sets (`constraints`), consumable capacity (`capacity`), device taints and request tolerations
(`taints`), claims and requests (`claim`), the bounded allocation search (`search`), the reasons a request fails
(`why`) and the entry points (`explain`)."""
