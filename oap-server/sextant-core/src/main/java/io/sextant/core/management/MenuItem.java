package io.sextant.core.management;

import java.util.List;

/**
 * One entry of the UI's navigation ({@code MenuItem} of ui-configuration.graphqls). A group has
 * sub-items and the empty layer; booster-ui builds routes from the titles ({@code /Service-Mesh/Services})
 * and lists an item not {@code activate}d in its marketplace instead of the menu.
 */
public record MenuItem(String title, String icon, String layer, boolean activate, List<MenuItem> subItems,
    String description, String documentLink, String i18nKey) {}
