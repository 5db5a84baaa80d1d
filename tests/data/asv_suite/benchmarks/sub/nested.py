class TimeNested:
    params = [[1, 2], ["x", "x"]]

    def time_join(self, n, text):
        return text * n
