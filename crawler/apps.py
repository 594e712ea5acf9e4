from django.apps import AppConfig


class CrawlerConfig(AppConfig):
    name = "crawler"
