from __future__ import annotations

from django.urls import path

from citations import views

app_name = "citations"
urlpatterns = [
    path("", views.review, name="review"),
    path("export.csv", views.review_export, name="export"),
    path("<uuid:citation_id>/", views.review_detail, name="detail"),
    path("<uuid:citation_id>/review/", views.review_decide, name="decide"),
    path("<uuid:citation_id>/reverify/", views.review_reverify, name="reverify"),
]
